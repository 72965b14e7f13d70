package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// keptBits are the mode bits a rewritten file keeps (as write_file keeps
// them): permissions and setuid, setgid, sticky.
const keptBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// errIrregular: the path holds a directory, link or special file now.
var errIrregular = errors.New("not a regular file")

// readCurrent reads the file on disk. A missing file is not an error
// (exists is false); a directory, link or special file is errIrregular.
func readCurrent(abs string) (data []byte, mode fs.FileMode, exists bool, err error) {
	info, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is a %s: %w", abs, kind(info.Mode()), errIrregular)
	}
	data, err = os.ReadFile(abs)
	if err != nil {
		return nil, 0, false, err
	}
	return data, info.Mode() & keptBits, true, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// removeCreated removes a file olly created, then each directory above it
// that olly created (created holds their absolute paths) while it is empty.
// A directory the person put files in stays.
func removeCreated(abs string, created map[string]bool) error {
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for dir := filepath.Dir(abs); created[dir]; dir = filepath.Dir(dir) {
		if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			break // not empty: something else lives there now
		}
	}
	return nil
}
