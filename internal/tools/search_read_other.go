//go:build !unix

package tools

import (
	"errors"
	"io"
	"os"
)

// readInto reads the regular file at abs into buf, up to the size it had
// when opened.
func readInto(abs string, maxBytes int64, buf *[]byte) ([]byte, skips) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, skips{unreadable: 1}
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, skips{unreadable: 1}
	case !fi.Mode().IsRegular() || fi.Size() == 0:
		return nil, skips{}
	case fi.Size() > maxBytes:
		return nil, skips{large: 1}
	}
	b := grow(buf, int(fi.Size()))
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, skips{unreadable: 1}
	}
	return b[:n], skips{}
}
