package llm

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestRetryHooks(t *testing.T) {
	down := &Error{Kind: KindConnection, BaseURL: "http://x"}
	limited := &Error{Kind: KindBadRequest, StatusCode: 429}
	var waits []time.Duration
	p := RetryPolicy{Backoff: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }}
	var log []string
	h := &RetryHooks{
		Start: func(a, m int, d time.Duration, err error) { log = append(log, fmt.Sprintf("start %d/%d %v", a, m, d)) },
		End:   func(ok bool, a int, err error) { log = append(log, fmt.Sprintf("end %v %d", ok, a)) },
	}
	ctx := WithRetryHooks(context.Background(), h)

	// 429, then a connection failure, then success.
	errs := []error{limited, down, nil}
	n := 0
	if err := p.Do(ctx, func() error { n++; return errs[n-1] }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(log) != "[start 1/3 1s start 2/3 2s end true 2]" {
		t.Errorf("hooks %v", log)
	}

	// Off: one attempt only, no hooks.
	log, n = nil, 0
	h.Off = func() bool { return true }
	if err := p.Do(ctx, func() error { n++; return down }); !errors.Is(err, ErrConnection) || n != 1 || log != nil {
		t.Errorf("off: %v after %d attempts, hooks %v", err, n, log)
	}

	// Aborted: the wait ends and so do the retries.
	h.Off = nil
	aborted := make(chan struct{})
	close(aborted)
	h.Aborted = func() <-chan struct{} { return aborted }
	log, n = nil, 0
	if err := p.Do(ctx, func() error { n++; return down }); !errors.Is(err, ErrConnection) || n != 1 {
		t.Errorf("aborted: %v after %d attempts", err, n)
	}
	if fmt.Sprint(log) != "[start 1/3 1s end false 1]" {
		t.Errorf("aborted hooks %v", log)
	}

	// An auth error is never retried.
	log, n = nil, 0
	h.Aborted = nil
	if err := p.Do(ctx, func() error { n++; return &Error{Kind: KindAuth} }); n != 1 || log != nil || err == nil {
		t.Errorf("auth: %d attempts, hooks %v", n, log)
	}
}
