package session

import (
	"context"
	"errors"
	"fmt"
)

// Taken says what SubmitWhenIdle does when another prompt takes the
// session between its release and the submit (another client, another
// tab, a queued follow-up).
type Taken int

const (
	// TakenYield leaves the session to the prompt that took it: the
	// submit is answered as Submit answers a busy session (queued as
	// whenBusy says, or ErrBusy). A caller that only waited for a turn to
	// wind down must not displace another person's prompt, nor wait for
	// a whole turn it did not ask to wait for.
	TakenYield Taken = iota
	// TakenAbort aborts the prompt that took it (and clears the queue),
	// then waits and submits again, until ctx ends: the caller asked to
	// replace whatever runs (RPC's abort_and_prompt).
	TakenAbort
)

// SubmitWhenIdle waits until the session is released in this process
// (WaitIdle: woken by the release, not polled) and then submits in as
// Submit does. The two steps are not atomic: taken decides what happens
// when another prompt takes the session in between. When ctx ends first
// the error wraps both ErrBusy and ctx's error.
func (s *Service) SubmitWhenIdle(ctx context.Context, id string, in PromptInput, whenBusy WhenBusy, taken Taken) (*Submission, error) {
	return s.submitWhenIdle(ctx, id, in, whenBusy, taken, nil)
}

// submitWhenIdle is SubmitWhenIdle; between, when set, runs after each
// wait and before its submit (tests put a competing prompt there).
func (s *Service) submitWhenIdle(ctx context.Context, id string, in PromptInput, whenBusy WhenBusy, taken Taken, between func()) (*Submission, error) {
	for {
		if err := s.WaitIdle(ctx, id); err != nil {
			return nil, fmt.Errorf("session %s was not released in time: %w", id, errors.Join(ErrBusy, err))
		}
		if between != nil {
			between()
		}
		when := whenBusy
		if taken == TakenAbort {
			when = WhenBusyRefuse // never queue behind the prompt about to be aborted
		}
		sub, err := s.Submit(ctx, id, in, when)
		if taken == TakenYield || !errors.Is(err, ErrBusy) {
			return sub, err
		}
		s.ClearQueue(id)
		s.Abort(id)
	}
}
