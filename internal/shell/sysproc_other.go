//go:build !linux

package shell

import "syscall"

// sysProcAttr starts bash in its own session; only Linux has a
// parent-death signal.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// fionread is the ioctl that tells how many bytes wait in a pipe:
// FIONREAD, _IOR('f', 127, int) on the BSDs and macOS.
const fionread = 0x4004667f
