//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"runtime"
)

func detect() Status {
	return Status{Reason: "olly has no sandbox for " + runtime.GOOS}
}

func confineAndExec(Spec, []string) error {
	return errors.New("no sandbox on " + runtime.GOOS)
}
