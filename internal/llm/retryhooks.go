package llm

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// RetryHooks let the caller of a request see and steer its retries (pi's
// auto-retry): RetryPolicy.Do reads them from the request's context.
type RetryHooks struct {
	// Off turns retries off for the request (nil: on).
	Off func() bool
	// Aborted, when it returns a closed channel, ends the wait before a
	// retry and the retries with it (abort_retry).
	Aborted func() <-chan struct{}
	// Start is called before the wait for each retry: attempt counts
	// from 1 (the first retry), of max; err is the failure being retried.
	Start func(attempt, max int, delay time.Duration, err error)
	// End is called once retries happened and are over: success, the
	// last attempt made (retries counted from 1), and the final error.
	End func(success bool, attempt int, err error)
}

type retryHooksKey struct{}

// WithRetryHooks returns ctx carrying h for the requests made with it.
func WithRetryHooks(ctx context.Context, h *RetryHooks) context.Context {
	return context.WithValue(ctx, retryHooksKey{}, h)
}

func retryHooksFrom(ctx context.Context) *RetryHooks {
	h, _ := ctx.Value(retryHooksKey{}).(*RetryHooks)
	return h
}

// rateLimited: the server answered 429 Too Many Requests, which passes
// once the caller waits.
func rateLimited(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests
}

// doHooked is Do with hooks: it reports each retry and the end, stops
// retrying when they are off, and waits on abort too.
func (p RetryPolicy) doHooked(ctx context.Context, h *RetryHooks, sleep Sleeper, fn func() error) error {
	err := fn()
	if h.Off != nil && h.Off() {
		return err
	}
	retries := 0
	for i := 0; err != nil && Retryable(err) && i < len(p.Backoff); i++ {
		retries = i + 1
		if h.Start != nil {
			h.Start(retries, len(p.Backoff), p.Backoff[i], err)
		}
		if !p.wait(ctx, h, sleep, p.Backoff[i]) {
			if h.End != nil {
				h.End(false, retries, err)
			}
			return err
		}
		err = fn()
	}
	if retries > 0 && h.End != nil {
		h.End(err == nil, retries, err)
	}
	return err
}

// wait sleeps d unless ctx ends or the retry is aborted, and reports
// whether it slept the whole time (so the request may be tried again).
// Either way the caller ends with the request's own last error: that
// says what went wrong, an abort only that nobody waited for it.
func (p RetryPolicy) wait(ctx context.Context, h *RetryHooks, sleep Sleeper, d time.Duration) bool {
	if h.Aborted == nil {
		return sleep(ctx, d) == nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	aborted := h.Aborted()
	go func() {
		select {
		case <-aborted:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := sleep(ctx, d); err != nil {
		return false
	}
	select {
	case <-aborted:
		return false
	default:
		return true
	}
}
