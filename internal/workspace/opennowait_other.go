//go:build !unix

package workspace

import (
	"fmt"
	"os"
)

// openNoWait opens path for reading; what is not a regular file is
// refused before it is opened (no O_NONBLOCK here), a link too with
// !follow.
func openNoWait(path string, follow bool) (*os.File, error) {
	stat := os.Stat
	if !follow {
		stat = os.Lstat
	}
	info, err := stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return os.Open(path)
}
