//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// openNoWait opens path for reading with O_NONBLOCK, which keeps the open
// of a FIFO from waiting for a writer; with !follow, O_NOFOLLOW refuses a
// link.
func openNoWait(path string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}
