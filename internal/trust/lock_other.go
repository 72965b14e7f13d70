//go:build !unix

package trust

// lockFile is a no-op where flock is missing: the process lock still
// serialises changes within one olly.
func lockFile(string) (func(), error) { return func() {}, nil }
