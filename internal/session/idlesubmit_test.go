package session

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSubmitWhenIdle covers the wait-then-submit of RPC's ending turns
// and abort_and_prompt: it waits for the running turn to give the session
// back, and when another prompt takes the session between that release
// and the submit (the race, forced here), TakenYield leaves the session
// to it (queued or refused as whenBusy says) while TakenAbort aborts it
// and submits once it has ended.
func TestSubmitWhenIdle(t *testing.T) {
	for _, tc := range []struct {
		name       string
		whenBusy   WhenBusy
		taken      Taken
		wantErr    error
		wantQueued WhenBusy
		wantRunner []string // the prompts the runner saw, in order
	}{
		{name: "yield refuses", whenBusy: WhenBusyRefuse, taken: TakenYield, wantErr: ErrBusy,
			wantRunner: []string{"first", "competitor"}},
		{name: "yield queues a follow-up", whenBusy: WhenBusyFollowUp, taken: TakenYield, wantQueued: WhenBusyFollowUp,
			wantRunner: []string{"first", "competitor", "mine"}},
		{name: "abort takes over", whenBusy: WhenBusyRefuse, taken: TakenAbort,
			wantRunner: []string{"first", "competitor", "mine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedRunner()
			svc, _, sess := newService(t, g)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			first, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "first"}, WhenBusyRefuse)
			if err != nil {
				t.Fatal(err)
			}
			runs := make(chan struct{}, 4)
			run := func(sub *Submission) {
				go func() {
					defer func() { runs <- struct{}{} }()
					if _, err := sub.Run(ctx); err != nil {
						t.Error(err)
					}
				}()
			}
			run(first)
			waitStarted(t, g)

			// Between the release and the submit, a competing prompt
			// takes the session and starts its turn.
			between := func() {
				comp, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "competitor"}, WhenBusyRefuse)
				if err != nil {
					t.Errorf("the competitor was not admitted: %v", err)
					return
				}
				run(comp)
				waitStarted(t, g)
			}
			var calls int
			once := func() {
				if calls++; calls == 1 {
					between()
				}
			}
			type result struct {
				sub *Submission
				err error
			}
			done := make(chan result, 1)
			go func() {
				sub, err := svc.submitWhenIdle(ctx, sess.ID, PromptInput{Text: "mine"}, tc.whenBusy, tc.taken, once)
				done <- result{sub, err}
			}()
			select {
			case r := <-done:
				t.Fatalf("submitted (%+v, %v) while the first turn runs", r.sub, r.err)
			case <-time.After(50 * time.Millisecond):
			}
			g.gate <- struct{}{} // the first turn ends: the session is released
			<-runs
			var r result
			if tc.taken == TakenAbort {
				r = <-done // the competitor was aborted, not let through the gate
			} else {
				select {
				case r = <-done:
				case <-ctx.Done():
					t.Fatal("TakenYield waited for the competitor's turn")
				}
				g.gate <- struct{}{} // the competitor ends (then the follow-up, if queued, runs)
			}
			if !errors.Is(r.err, tc.wantErr) || (tc.wantErr == nil && r.err != nil) {
				t.Fatalf("err = %v, want %v", r.err, tc.wantErr)
			}
			if r.sub != nil {
				if r.sub.Queued != tc.wantQueued {
					t.Errorf("queued %q, want %q", r.sub.Queued, tc.wantQueued)
				}
				if r.sub.Queued == "" {
					run(r.sub)
				}
			}
			if tc.taken == TakenAbort || tc.wantQueued != "" {
				waitStarted(t, g) // mine
				g.gate <- struct{}{}
			}
			if err := svc.WaitIdle(ctx, sess.ID); err != nil {
				t.Fatal(err)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if len(g.prompts) != len(tc.wantRunner) {
				t.Fatalf("the runner saw %q, want %q", g.prompts, tc.wantRunner)
			}
			for i := range g.prompts {
				if g.prompts[i] != tc.wantRunner[i] {
					t.Fatalf("the runner saw %q, want %q", g.prompts, tc.wantRunner)
				}
			}
		})
	}
}

// TestSubmitWhenIdleGivesUp: a session that is not released before ctx
// ends is reported busy, with the deadline.
func TestSubmitWhenIdleGivesUp(t *testing.T) {
	g := newGatedRunner()
	svc, _, sess := newService(t, g)
	ctx := context.Background()
	first, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "first"}, WhenBusyRefuse)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	_, err = svc.SubmitWhenIdle(short, sess.ID, PromptInput{Text: "mine"}, WhenBusyRefuse, TakenAbort)
	if !errors.Is(err, ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want busy and the deadline", err)
	}
}
