//go:build darwin

package sandbox

import (
	"errors"
	"os"
)

func detect() Status {
	if _, err := os.Stat(seatbeltExec); err != nil {
		return Status{Reason: seatbeltExec + " is missing"}
	}
	return Status{Mechanism: "seatbelt"}
}

// confineAndExec is not used on macOS: Wrap runs sandbox-exec directly.
func confineAndExec(Spec, []string) error {
	return errors.New("the helper is not used on macOS (sandbox-exec confines commands)")
}
