package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// Turn.Sync returns once every event the turn emitted is stored and
// published, without waiting for the store's commit delay (an hour here:
// nothing else would commit them during the turn).
func TestTurnSyncStoresAndPublishes(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{CommitDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := store.Open(ctx, st.File(), store.Options{}) // what another process reads
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var svc *Service
	checked := 0
	svc, err = New(Deps{Store: st, Runner: runnerFunc(func(ctx context.Context, tn *Turn) (*TurnResult, error) {
		sub := svc.Bus().Subscribe(func(ev event.Event) bool { return ev.Session == tn.SessionID })
		defer sub.Close()
		for i := range 3 {
			var last event.Event
			for k := range 4 {
				ev, err := tn.Emit(ctx, event.ToolResult{ToolName: "t", Content: fmt.Sprint(i, k)})
				if err != nil {
					return nil, err
				}
				last = ev
			}
			if err := tn.Sync(ctx); err != nil {
				return nil, err
			}
			if n, err := other.LastSeq(ctx, tn.SessionID); err != nil || n < last.Seq {
				t.Errorf("round %d: after Sync the log ends at %d (%v), want %d", i, n, err, last.Seq)
			}
			seen := false
			for {
				ev, ok := sub.TryNext()
				if !ok {
					break
				}
				seen = seen || ev.Seq == last.Seq
			}
			if !seen {
				t.Errorf("round %d: event %d not published when Sync returned", i, last.Seq)
			}
			checked++
		}
		return &TurnResult{Turn: tn.Number, Status: event.FinishDone}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Create(ctx, CreateOptions{Workspace: t.TempDir(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "go"}); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the turn did not end: its events waited for the commit delay")
	}
	if checked != 3 {
		t.Fatalf("%d rounds checked, want 3", checked)
	}
}

// A turn outside the service (sub-agents) has nothing to sync.
func TestDetachedTurnSync(t *testing.T) {
	tn := NewTurn("s", 1, nil, PromptInput{}, nil, func(context.Context, event.Payload) (event.Event, error) { return event.Event{}, nil })
	if err := tn.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Emit outside a turn returns once its event is stored, without waiting
// for the store's commit delay.
func TestEmitDoesNotWaitForCommitDelay(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{CommitDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := New(Deps{Store: st, Runner: runnerFunc(simpleTurn)})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Create(ctx, CreateOptions{Workspace: t.TempDir(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		ev, err := svc.Emit(ctx, sess.ID, 0, event.TitleChanged{Title: "t"})
		if err == nil && ev.Seq == 0 {
			err = fmt.Errorf("emitted without a seq: %+v", ev)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Emit waited for the commit delay")
	}
	if n, err := st.LastSeq(ctx, sess.ID); err != nil || n != 1 {
		t.Fatalf("stored up to %d (%v), want 1", n, err)
	}
}
