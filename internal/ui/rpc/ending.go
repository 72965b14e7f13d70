package rpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// endingWait bounds the wait for a turn that has recorded turn_finished
// (the client saw agent_end) to give the session back.
const endingWait = 5 * time.Second

// turnEnding reports whether the session's last stored event is
// turn_finished: its turn is over and only winding down (a client that
// answers agent_end at once must not be told the session is busy).
func (s *Server) turnEnding(ctx context.Context, id string) bool {
	last, err := s.opts.Sessions.LastSeq(ctx, id)
	if err != nil || last == 0 {
		return false
	}
	evs, err := s.opts.Sessions.Events(ctx, id, last-1, 1)
	if err != nil || len(evs) != 1 {
		return false
	}
	_, ok := evs[0].Data.(event.TurnFinished)
	return ok
}

// submitAfterEnd submits again once the ended turn has given the session
// back (session.Service.SubmitWhenIdle). A prompt that takes the session
// in between keeps it: this one is then queued or refused as when (the
// client only waited for a turn to wind down, it did not ask to displace
// anyone).
func (s *Server) submitAfterEnd(ctx context.Context, id string, in session.PromptInput, when session.WhenBusy) (*session.Submission, error) {
	wctx, cancel := context.WithTimeout(ctx, endingWait)
	defer cancel()
	sub, err := s.opts.Sessions.SubmitWhenIdle(wctx, id, in, when, session.TakenYield)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("session %s: the ended turn did not give the session back within %s: %w", id, endingWait, session.ErrBusy)
	}
	return sub, err
}
