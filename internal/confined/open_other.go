//go:build !unix

package confined

import (
	"fmt"
	"os"
)

// open opens real, already resolved, for reading; what is not a regular
// file is refused before it is opened (no O_NONBLOCK here).
func open(real string) (*os.File, error) {
	info, err := os.Lstat(real)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", real, ErrNotRegular)
	}
	return os.Open(real)
}

// openFollow opens p for reading, links followed; what is not a regular
// file is refused before it is opened (no O_NONBLOCK here).
func openFollow(p string) (*os.File, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
	}
	return os.Open(p)
}
