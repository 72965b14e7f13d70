package agent

import (
	"encoding/json"
	"sync"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/safety"
)

// Work a process does the first time it meets it — encoding/json building
// the encoder of a type it has not encoded before, the first run of the
// command analysis (its code is cold: ~1 ms for the first command against
// 0.04–0.07 ms for the next, more where each code page faults in one at a
// time, internal/exetrim) — is done once, in the background, when the
// process's first turn starts, instead of inside that turn's first iteration (issue 17: the first iteration was the slowest of
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
			warmAnalysis()
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

// warmAnalysis runs the terminal tool's command analysis (internal/tools
// terminal.go: safety.Check) once on a command with the usual shapes — a
// cd, a pipeline, redirections, an expansion. It is pure: nothing is read
// or written.
func warmAnalysis() {
	const command = `cd sub && printf '%s\n' "$X" | grep -v x > out.txt 2>&1`
	opts := safety.Options{Roots: []string{"/nonexistent/olly-warm-up"}, Cwd: "/nonexistent/olly-warm-up"}
	_ = safety.Check(command, opts)
}
