package shell

import "golang.org/x/sys/unix"

// dropRead frees the storage of the request file's first n bytes, which
// bash has read (a hole: the size and bash's offset stay), so a long
// session's requests do not pile up in memory (the file is on a memory
// file system where there is one). Best effort: an error costs only
// that memory.
func dropRead(fd int, n int64) {
	_ = unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, n)
}
