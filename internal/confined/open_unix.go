//go:build unix

package confined

import (
	"os"
	"syscall"
)

// open opens real, already resolved, for reading. O_NONBLOCK: opening a
// FIFO for reading would otherwise wait for a writer forever (read then
// refuses it as not regular). O_NOFOLLOW: a link swapped in after the path
// was resolved is refused rather than followed.
func open(real string) (*os.File, error) {
	return os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

// openFollow opens p for reading, links followed, without waiting: a FIFO
// would otherwise block the open until a writer came (OpenRegular then
// refuses it as not regular).
func openFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
