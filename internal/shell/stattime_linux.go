package shell

import (
	"syscall"
	"time"
)

// statDir returns dir's inode and modification time (links followed).
// One stat, nothing allocated: it runs for every watched place before
// every command.
func statDir(dir string) (ino uint64, mtime time.Time, ok bool) {
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) != nil {
		return 0, time.Time{}, false
	}
	return uint64(st.Ino), time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)), true // int32 on 386
}
