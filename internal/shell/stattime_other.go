//go:build !linux

package shell

import (
	"os"
	"syscall"
	"time"
)

// statDir returns dir's inode and modification time (links followed).
func statDir(dir string) (ino uint64, mtime time.Time, ok bool) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, time.Time{}, false
	}
	if st, isUnix := fi.Sys().(*syscall.Stat_t); isUnix {
		ino = uint64(st.Ino)
	}
	return ino, fi.ModTime(), true
}
