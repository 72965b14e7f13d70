package llm

import (
	"context"
	"time"
)

// Sleeper waits for d or until ctx ends, whichever comes first. Tests inject
// one that records the waits and returns at once.
type Sleeper func(ctx context.Context, d time.Duration) error

// RealSleep is the Sleeper backed by a timer.
func RealSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RetryPolicy says how often and how long to wait before retrying a request
// that failed with a retryable error (connection failures and 5xx — never an
// auth error: retrying a bad token only delays the message that says so).
type RetryPolicy struct {
	// Backoff holds the wait before each retry; its length is the number of
	// retries after the first attempt.
	Backoff []time.Duration
	// Sleep waits; nil means RealSleep.
	Sleep Sleeper
}

// DefaultRetry retries three times, after 1 s, 2 s and 4 s (DESIGN §9).
func DefaultRetry() RetryPolicy {
	return RetryPolicy{Backoff: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}}
}

// Retryable reports whether a request that failed with err may be tried
// again: connection failures, server errors, timeouts and 429 (rate
// limited) only.
func Retryable(err error) bool {
	switch KindOf(err) {
	case KindConnection, KindServer, KindTimeout:
		return true
	}
	return rateLimited(err) // 429: wait and try again (retryhooks.go)
}

// Do calls fn until it succeeds, fails with an error that is not retryable,
// the retries are used up, or ctx ends. It returns fn's last error.
func (p RetryPolicy) Do(ctx context.Context, fn func() error) error {
	sleep := p.Sleep
	if sleep == nil {
		sleep = RealSleep
	}
	if h := retryHooksFrom(ctx); h != nil {
		return p.doHooked(ctx, h, sleep, fn)
	}
	err := fn()
	for i := 0; err != nil && Retryable(err) && i < len(p.Backoff); i++ {
		if serr := sleep(ctx, p.Backoff[i]); serr != nil {
			return err
		}
		err = fn()
	}
	return err
}

// Timeouts bound how long a request waits for the server. Zero turns one
// off. The context still cancels at any time.
type Timeouts struct {
	// Connect bounds establishing the connection.
	Connect time.Duration
	// Response bounds the wait for the response headers: Ollama sends
	// them once the model is loaded and the prompt read, which takes
	// minutes for a large model on a CPU.
	Response time.Duration
	// Idle bounds the silence between two pieces of a response body.
	// Ollama sends nothing while it buffers a native tool call, so this
	// must outlast writing the largest call.
	Idle time.Duration
}

// DefaultTimeouts are generous: a server that is slow is not a server that
// is gone.
func DefaultTimeouts() Timeouts {
	return Timeouts{Connect: 30 * time.Second, Response: 5 * time.Minute, Idle: 3 * time.Minute}
}
