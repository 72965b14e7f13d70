//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// shmDMSByte is the byte of the -shm file on which every connection that
// has a WAL database open holds a shared lock for as long as it is open
// (SQLite's "dead man switch", UNIX_SHM_DMS in os_unix.c).
const shmDMSByte = 128

// inUse reports whether another process has the WAL database at path open:
// whether someone holds a lock that a write lock on the DMS byte would
// conflict with. Locks of this process are not seen (POSIX F_GETLK).
func inUse(path string) (bool, error) {
	f, err := os.Open(path + "-shm")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // no shared memory: no connection has it open in WAL mode
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: shmDMSByte, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return false, err
	}
	return lk.Type != syscall.F_UNLCK, nil
}
