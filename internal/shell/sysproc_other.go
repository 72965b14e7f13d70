//go:build !linux

package shell

import "syscall"

// sysProcAttr starts bash in its own session; only Linux has a
// parent-death signal.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
