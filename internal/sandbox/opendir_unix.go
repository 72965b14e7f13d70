//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// openDir opens the folder dir for listing without waiting: a command can
// swap a folder for a FIFO between the listing that found it and this
// open, and a plain open of a FIFO waits for a writer forever;
// O_DIRECTORY refuses anything but a folder.
func openDir(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}
