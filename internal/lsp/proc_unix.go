//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the server in a process group of its own, so that
// killing it also kills what it started (typescript-language-server runs
// tsserver; some servers run build tools).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the server's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
