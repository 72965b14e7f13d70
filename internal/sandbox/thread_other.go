//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

func startConfined(*exec.Cmd, Spec) (<-chan error, error) {
	return nil, errors.New("sandbox: in-process confinement needs Landlock (Linux)")
}
