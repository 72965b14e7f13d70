//go:build unix

package tools

import (
	"errors"
	"syscall"
)

// readInto reads the regular file at abs into buf with four system calls
// (open, fstat, read, close). os.Open would add a poller registration and
// a finalizer per file, which on a search of thousands of small files
// costs as much as the reading. O_NONBLOCK keeps a FIFO reached through a
// link from blocking the open; fstat then skips it. A file that grows
// while being read is read up to the size fstat gave.
func readInto(abs string, maxBytes int64, buf *[]byte) ([]byte, skips) {
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	for errors.Is(err, syscall.EINTR) {
		fd, err = syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, skips{unreadable: 1}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, skips{unreadable: 1}
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size == 0:
		return nil, skips{}
	case st.Size > maxBytes:
		return nil, skips{large: 1}
	}
	b := grow(buf, int(st.Size))
	n := 0
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
			continue
		}
		if err != nil {
			return nil, skips{unreadable: 1}
		}
		if k == 0 {
			break // shrank while being read
		}
		n += k
	}
	return b[:n], skips{}
}
