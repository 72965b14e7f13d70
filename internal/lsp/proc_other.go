//go:build !unix

package lsp

import "os/exec"

// ownGroup is a no-op without Unix process groups.
func ownGroup(*exec.Cmd) {}

// killGroup kills the server process itself.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
