//go:build unix && !linux

package store

import (
	"errors"
	"syscall"
)

// processStart is unknown here: liveness relies on the pid alone.
func processStart(int) int64 { return 0 }

// processAlive reports whether a process with pid exists (signal 0 checks
// without sending anything; EPERM means it exists but is not ours).
func processAlive(pid int, _ int64) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
