//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

func startConfined(*exec.Cmd, Spec, []Grant) (<-chan error, error) {
	return nil, errors.New("sandbox: in-process confinement needs Landlock (Linux)")
}

func (b *Sandbox) startInNamespace(*exec.Cmd, Spec, []Grant) (<-chan error, error) {
	return nil, errors.New("sandbox: mount namespaces need Linux")
}

func (b *Sandbox) probeMount() error { return errors.New("mount namespaces need Linux") }

func (b *Sandbox) helperCmd(*exec.Cmd, Spec) error {
	return errors.New("sandbox: mount namespaces need Linux")
}
