package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// retrySwitch holds the frontends' auto-retry settings (pi's
// set_auto_retry, abort_retry); they last as long as olly runs.
type retrySwitch struct {
	mu  sync.Mutex
	off map[string]bool
	// abort is, per session, the channel abort_retry closes: the waits
	// started before it end.
	abort map[string]chan struct{}
}

// AutoRetry reports whether transient model errors of session id are
// retried (on unless SetAutoRetry turned it off).
func (a *Agent) AutoRetry(id string) bool {
	a.retry.mu.Lock()
	defer a.retry.mu.Unlock()
	return !a.retry.off[id]
}

// SetAutoRetry turns the retries of transient model errors (connection,
// server errors, timeouts, 429) of session id on or off, from its next
// model request on. Off, the first failure ends the turn.
func (a *Agent) SetAutoRetry(id string, on bool) error {
	if id == "" {
		return errors.New("set auto-retry: no session id")
	}
	a.retry.mu.Lock()
	defer a.retry.mu.Unlock()
	if on {
		delete(a.retry.off, id)
		return nil
	}
	if a.retry.off == nil {
		a.retry.off = map[string]bool{}
	}
	a.retry.off[id] = true
	return nil
}

// AbortRetry ends the retry session id is waiting for, if any: the
// request fails with the error being retried. Nothing waiting: nothing
// happens (as in pi).
func (a *Agent) AbortRetry(id string) error {
	if id == "" {
		return errors.New("abort retry: no session id")
	}
	a.retry.mu.Lock()
	defer a.retry.mu.Unlock()
	if ch, ok := a.retry.abort[id]; ok {
		close(ch)
		delete(a.retry.abort, id)
	}
	return nil
}

// abortChan is the channel AbortRetry closes for session id now.
func (a *Agent) abortChan(id string) chan struct{} {
	a.retry.mu.Lock()
	defer a.retry.mu.Unlock()
	ch, ok := a.retry.abort[id]
	if !ok {
		if a.retry.abort == nil {
			a.retry.abort = map[string]chan struct{}{}
		}
		ch = make(chan struct{})
		a.retry.abort[id] = ch
	}
	return ch
}

// withRetryHooks returns ctx with the hooks that turn the model request's
// retries into model_retry events and obey the session's switch.
func (r *run) withRetryHooks(ctx context.Context) context.Context {
	id := r.t.SessionID
	var aborted chan struct{}
	h := &llm.RetryHooks{
		Off:     func() bool { return !r.a.AutoRetry(id) },
		Aborted: func() <-chan struct{} { return aborted },
		Start: func(attempt, max int, delay time.Duration, err error) {
			// Taken before the event is out, so an abort_retry that
			// answers it finds this wait.
			aborted = r.a.abortChan(id)
			_ = r.emit(ctx, event.ModelRetry{Iteration: r.iter, Phase: event.RetryStart, Attempt: attempt,
				MaxAttempts: max, DelayMs: delay.Milliseconds(), Error: err.Error()})
		},
		End: func(success bool, attempt int, err error) {
			e := event.ModelRetry{Iteration: r.iter, Phase: event.RetryEnd, Attempt: attempt, Success: success}
			if err != nil {
				e.Error = err.Error()
			}
			_ = r.emit(ctx, e)
		},
	}
	return llm.WithRetryHooks(ctx, h)
}
