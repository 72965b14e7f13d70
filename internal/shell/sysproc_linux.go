//go:build linux

package shell

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr starts bash in its own session (no controlling terminal,
// its own process group) with a parent-death signal: the kernel kills it
// when the olly thread that started it ends, which in Go is when olly
// ends (Go never ends a thread it did not lock, and olly locks none to
// start commands).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// fionread is the ioctl that tells how many bytes wait in a pipe
// (FIONREAD, which Linux names TIOCINQ).
const fionread = unix.TIOCINQ
