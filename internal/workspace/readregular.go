package workspace

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Limits of what readRegular reads from the ignore and git files the
// walk looks at.
const (
	maxIgnoreFile = 4 << 20
	maxGitPointer = 4 << 10
)

// readRegular reads up to limit bytes of name when it is a regular file.
// It opens without waiting (a FIFO a command planted as .gitignore or
// .git would block a plain open forever, and with it every search and
// listing) and checks the file it opened, so a swap after a check cannot
// get in between.
func readRegular(name string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
