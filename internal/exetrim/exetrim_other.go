//go:build !linux || android || !(amd64 || arm64)

package exetrim

// Trim does nothing here: the trimming needs Linux's userfaultfd (see the
// package documentation).
func Trim() {}

// Status reports that nothing is armed on this platform.
func Status() (armed bool, why string) {
	return false, "only on Linux (amd64, arm64), not Android"
}

// Spans returns nil: nothing is armed on this platform.
func Spans() [][2]uintptr { return nil }
