package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// A turn's events are queued for group commit: its Emit returns before
// the commit, yet subscribers see each durable event only once another
// connection can read it, everything in emit order (ephemeral ones
// included), with the Seq the turn was given; and Prompt returns only when
// the whole turn is stored.
func TestTurnEmitsQueuedPublishedOnceStored(t *testing.T) {
	const n = 300
	var given []event.Event
	svc, st, sess := newService(t, runnerFunc(func(ctx context.Context, tn *Turn) (*TurnResult, error) {
		for i := range n {
			var p event.Payload = event.ToolResult{ToolName: "t", Content: fmt.Sprint(i)}
			if i%3 == 2 {
				p = event.TextDelta{Iteration: 1, Text: fmt.Sprint(i)}
			}
			ev, err := tn.Emit(ctx, p)
			if err != nil {
				return nil, err
			}
			given = append(given, ev)
		}
		return &TurnResult{Turn: tn.Number, Status: event.FinishDone}, nil
	}))
	ctx := context.Background()
	other, err := store.Open(ctx, st.File(), store.Options{}) // what another process reads
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	sub := svc.Bus().Subscribe(func(ev event.Event) bool { return ev.Session == sess.ID })
	defer sub.Close()
	var published []event.Event
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		for len(published) < n {
			ev, err := sub.Next(rctx)
			if err != nil {
				t.Errorf("after %d events: %v", len(published), err)
				return
			}
			if ev.Durable() {
				if rec, err := other.Event(ctx, sess.ID, ev.Seq); err != nil || rec.Type != string(ev.Type()) {
					t.Errorf("event %d published before another connection could read it: %+v, %v", ev.Seq, rec, err)
				}
			}
			published = append(published, ev)
		}
	}()
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	recs, err := other.Events(ctx, sess.ID, 0, 0)
	if err != nil || len(recs) != 2*n/3 {
		t.Fatalf("when Prompt returned: %d events stored (%v), want %d", len(recs), err, 2*n/3)
	}
	wg.Wait()
	if len(published) != n {
		t.Fatalf("%d events published, want %d", len(published), n)
	}
	for i, ev := range published {
		want := given[i]
		if ev.Type() != want.Type() || ev.Seq != want.Seq || !ev.At.Equal(want.At) || fmt.Sprint(ev.Data) != fmt.Sprint(want.Data) {
			t.Fatalf("published #%d: %s seq %d %v; emitted %s seq %d %v", i, ev.Type(), ev.Seq, ev.Data, want.Type(), want.Seq, want.Data)
		}
	}
}

// failingLog fails the store's answer for the failAt-th queued event (it
// was stored, but the service is told it was not, as after a failed commit).
type failingLog struct {
	*store.Store
	n, failAt atomic.Int64
}

func (f *failingLog) AppendAsync(ctx context.Context, rec *store.EventRecord, done func(error)) error {
	k := f.n.Add(1)
	return f.Store.AppendAsync(ctx, rec, func(err error) {
		if k >= f.failAt.Load() && err == nil {
			err = errors.New("disk full")
		}
		done(err)
	})
}

// A queued event that cannot be stored is not published, nor is anything
// after it; the turn's later emits fail, and the turn ends in error.
func TestTurnStopsAfterQueuedEventFails(t *testing.T) {
	ctx := context.Background()
	_, st, sess := newService(t, nil)
	f := &failingLog{Store: st}
	f.failAt.Store(5)
	var emitErr error
	emitted := 0
	svc, err := New(Deps{Store: f, Runner: runnerFunc(func(ctx context.Context, tn *Turn) (*TurnResult, error) {
		for i := range 200 {
			if _, err := tn.Emit(ctx, event.ToolResult{ToolName: "t", Content: fmt.Sprint(i)}); err != nil {
				emitErr = err
				break
			}
			emitted++
			time.Sleep(100 * time.Microsecond)
		}
		return &TurnResult{Turn: tn.Number, Status: event.FinishDone}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	sub := svc.Bus().Subscribe(nil)
	defer sub.Close()
	_, err = svc.Prompt(ctx, sess.ID, PromptInput{Text: "go"})
	if err == nil || emitErr == nil {
		t.Fatalf("turn with a failed event: Prompt %v, emit %v after %d events", err, emitErr, emitted)
	}
	var seqs []int64
	for {
		ev, ok := sub.TryNext()
		if !ok {
			break
		}
		if _, isResult := ev.Data.(event.ToolResult); isResult {
			seqs = append(seqs, ev.Seq)
		}
	}
	if fmt.Sprint(seqs) != "[1 2 3 4]" {
		t.Errorf("published the results with seqs %v; want the four before the failed fifth", seqs)
	}
	got, err := st.Session(ctx, sess.ID)
	if err != nil || got.Status != store.StatusError {
		t.Errorf("session status %v, %v; want error", got.Status, err)
	}
	// The failure is reported once: the next turn emits again.
	f.failAt.Store(1 << 40)
	if _, err := svc.Emit(ctx, sess.ID, 2, event.ToolResult{ToolName: "t", Content: "later"}); err != nil {
		t.Errorf("emit after the failed turn ended: %v", err)
	}
}
