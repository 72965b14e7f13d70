package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Files olly reads from places it does not control (a workspace's
// .gitignore and .git files, skills, hooks, a repository's git metadata)
// may be FIFOs, devices or folders, planted by a command or swapped in
// between a check and the open. A plain open of a FIFO waits for a writer
// forever, and a device's read never ends. OpenRegular is the one way
// such files are opened: without waiting, then checked on the file it
// opened, so a swap after the check cannot get in between.

// ErrNotRegular: a directory, FIFO, socket or device where a file was to
// be read.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading, links followed, when what it opened
// is a regular file: a FIFO is opened without waiting for a writer and
// then refused, as are directories, sockets and devices (ErrNotRegular).
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	return openRegular(path, true)
}

// OpenRegularNoFollow is OpenRegular for a path whose links were resolved
// already: a link found there now (swapped in since) is refused rather
// than followed.
func OpenRegularNoFollow(path string) (*os.File, os.FileInfo, error) {
	return openRegular(path, false)
}

func openRegular(path string, follow bool) (*os.File, os.FileInfo, error) {
	f, err := openNoWait(path, follow)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// ReadRegular reads up to limit bytes of path when it is a regular file
// (OpenRegular).
func ReadRegular(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, true)
}

// ReadRegularNoFollow is ReadRegular for a path whose links were resolved
// already (a Resolve'd Abs): a link found there now is refused, and so is
// a FIFO swapped in since, without waiting for a writer.
func ReadRegularNoFollow(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, false)
}

func readRegular(path string, limit int64, follow bool) ([]byte, error) {
	f, _, err := openRegular(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
