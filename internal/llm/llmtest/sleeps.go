package llmtest

import (
	"context"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// Sleeps is an llm.Sleeper that records the waits it is asked for and
// returns at once, so retry tests check the backoff without sleeping.
type Sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns at once (or ctx's error if it has ended).
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns the recorded waits in order.
func (s *Sleeps) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// Policy returns llm.DefaultRetry() with s as its sleeper.
func (s *Sleeps) Policy() llm.RetryPolicy {
	p := llm.DefaultRetry()
	p.Sleep = s.Sleep
	return p
}
