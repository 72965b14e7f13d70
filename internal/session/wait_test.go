package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/store"
)

func TestWaitIdle(t *testing.T) {
	g := newGatedRunner()
	svc, _, sess := newService(t, g)
	ctx := context.Background()

	if err := svc.WaitIdle(ctx, sess.ID); err != nil {
		t.Fatalf("WaitIdle on an idle session: %v", err)
	}
	if err := svc.WaitIdle(ctx, "never-used"); err != nil {
		t.Fatalf("WaitIdle on a session this process never used: %v", err)
	}

	first, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "first"}, WhenBusyRefuse)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "then"}, WhenBusyFollowUp); err != nil {
		t.Fatal(err)
	}
	// Admitted, not yet running: the session is held.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := svc.WaitIdle(short, sess.ID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitIdle on an admitted prompt = %v, want the context's deadline", err)
	}

	ran := make(chan struct{})
	go func() {
		defer close(ran)
		if _, err := first.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	idle := make(chan error, 1)
	go func() { idle <- svc.WaitIdle(ctx, sess.ID) }()

	waitStarted(t, g)
	g.gate <- struct{}{} // the first turn ends: its follow-up still holds the session
	waitStarted(t, g)
	select {
	case err := <-idle:
		t.Fatalf("WaitIdle returned (%v) while the follow-up runs", err)
	default:
	}
	g.gate <- struct{}{}
	select {
	case err := <-idle:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitIdle did not return once the session was released")
	}
	<-ran
	sub, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "next"}, WhenBusyRefuse)
	if err != nil {
		t.Fatalf("Submit after WaitIdle: %v", err)
	}
	sub.Release()
}

// A WaitIdle that starts while Delete holds the session returns once the
// session is deleted (not at its deadline), and the caller then finds the session
// gone, not busy.
func TestWaitIdleWokenByDelete(t *testing.T) {
	svc, st, sess := newService(t, newGatedRunner())
	ctx := context.Background()
	// Delete's steps, with a WaitIdle let in between its hold and its
	// forgetting of the session.
	if err := svc.begin(sess.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	idle := make(chan error, 1)
	go func() { idle <- svc.WaitIdle(ctx, sess.ID) }()
	for waiting := false; !waiting; {
		svc.mu.Lock()
		waiting = svc.sessions[sess.ID].idle != nil
		svc.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	if err := st.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	svc.mu.Lock()
	svc.forgetLocked(sess.ID)
	svc.mu.Unlock()
	select {
	case err := <-idle:
		if err != nil {
			t.Fatalf("WaitIdle on a deleted session: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitIdle did not return once the session was deleted")
	}
	if _, err := svc.Open(ctx, sess.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Open after the delete = %v, want not found", err)
	}
}
