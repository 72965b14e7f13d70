//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// fileID is the device, inode and change time of a file: a rebuilt or
// replaced helper binary gets a new one.
func fileID(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d.%d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
