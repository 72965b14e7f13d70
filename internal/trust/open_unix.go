//go:build unix

package trust

import (
	"os"
	"syscall"
)

// openNonBlocking opens p for reading without waiting: a FIFO swapped in
// after hashFile's Stat would otherwise block the open until a writer
// came (hashFile then refuses it as not regular).
func openNonBlocking(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
