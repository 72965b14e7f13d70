package agent

import (
	"encoding/json"
	"sync"

	"github.com/olly-agent/olly/event"
)

// Work a process does the first time it meets it — encoding/json building
// the encoder of a type it has not encoded before — is done once, in the
// background, when the process's first turn starts, instead of inside that
// turn's first iteration (issue 17: the first iteration was the slowest of
// most runs). The first turn's dispatcher request and model lookup run
// meanwhile, so on a machine with a spare core it costs the turn nothing.
var warmOnce sync.Once

// warmUp starts the warm-up if no turn of this process has; the returned
// function waits for it (the turn that started it owns the goroutine and
// waits before it returns). Later turns get a function that returns at once.
func warmUp() (wait func()) {
	wait = func() {}
	warmOnce.Do(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			warmEncoders()
		}()
		wait = func() { <-done }
	})
	return wait
}

// warmEncoders builds the encoders of every event payload and of the
// control packets (control.go).
func warmEncoders() {
	event.WarmEncoders()
	for _, v := range []any{controlMinimal{}, controlStandard{}, controlFull{}} {
		_, _ = json.Marshal(v)
	}
}
