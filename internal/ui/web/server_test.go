package web

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunnerGoAfterStop: work asked for while (or after) the runner
// stops is not started, and never races stop's wait (go test -race).
func TestRunnerGoAfterStop(t *testing.T) {
	r := newRunner()
	var ran atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				r.Go(func(ctx context.Context) { ran.Add(1) })
			}
		})
	}
	r.stop()
	wg.Wait()
	_ = ran.Load()
	late := make(chan struct{})
	r.Go(func(ctx context.Context) { close(late) })
	select {
	case <-late:
		t.Fatal("work asked for after stop ran")
	case <-time.After(200 * time.Millisecond):
	}
}
