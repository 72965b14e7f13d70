package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runnerFunc adapts a function to Runner.
type runnerFunc func(ctx context.Context, t *Turn) (*TurnResult, error)

func (f runnerFunc) RunTurn(ctx context.Context, t *Turn) (*TurnResult, error) { return f(ctx, t) }

func newService(t *testing.T, r Runner) (*Service, *store.Store, *store.Session) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := New(Deps{Store: st, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Create(ctx, CreateOptions{Workspace: t.TempDir(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st, sess
}

// simpleTurn emits a small turn.
func simpleTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	for _, p := range []event.Payload{
		event.TurnStarted{Mode: t.Mode, Model: t.Model},
		event.UserMessage{Text: t.Input.Text},
		event.TextDelta{Iteration: 1, Text: "hi"},
		event.AssistantMessage{Iteration: 1, Text: "hi", Content: "hi"},
		event.TurnFinished{Status: event.FinishDone, Iterations: 1},
	} {
		if _, err := t.Emit(ctx, p); err != nil {
			return nil, err
		}
	}
	return &TurnResult{Turn: t.Number, Status: event.FinishDone, Iterations: 1}, nil
}

func TestEmitStoresBeforePublishing(t *testing.T) {
	svc, st, sess := newService(t, nil)
	ctx := context.Background()
	sub := svc.Bus().Subscribe(nil)
	defer sub.Close()
	if _, err := svc.Emit(ctx, sess.ID, 1, event.TextDelta{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	ev, err := svc.Emit(ctx, sess.ID, 1, event.UserMessage{Text: "searchable words"})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Seq != 1 {
		t.Fatalf("durable event seq = %d, want 1 (ephemeral events get none)", ev.Seq)
	}
	for _, want := range []event.Type{event.TypeTextDelta, event.TypeUserMessage} {
		got, _ := sub.TryNext()
		if got.Type() != want {
			t.Fatalf("published %s, want %s", got.Type(), want)
		}
		if got.Durable() {
			// Published means stored: the log has it already, identical.
			rec, err := st.Event(ctx, sess.ID, got.Seq)
			if err != nil || rec.Type != "user_message" || !rec.At.Equal(got.At) {
				t.Fatalf("stored %+v (%v) for published %+v", rec, err, got)
			}
		}
	}
	recs, _ := st.Events(ctx, sess.ID, 0, 0)
	if len(recs) != 1 {
		t.Errorf("%d events stored, want only the durable one", len(recs))
	}
	// The prompt's words are searchable (EventRecord.Text).
	found, err := st.Search(ctx, store.SearchQuery{Text: "searchable"})
	if err != nil || len(found.Sessions) != 1 || found.Sessions[0].Session.ID != sess.ID {
		t.Errorf("search for the prompt's words: %+v, %v", found, err)
	}
	if _, err := svc.Emit(ctx, "no-such-session", 1, event.UserMessage{Text: "x"}); err == nil {
		t.Error("emit into a missing session succeeded")
	}
}

// Subscribers that join at any moment, while several goroutines emit, get
// every durable event exactly once and in order.
func TestSubscribeNoGapNoDuplicate(t *testing.T) {
	svc, _, sess := newService(t, nil)
	ctx := context.Background()
	const writers, each = 4, 40
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := svc.Emit(ctx, sess.ID, 1, event.Status{Text: "tick"}); err != nil {
					t.Error(err)
				}
				if _, err := svc.Emit(ctx, sess.ID, 1, event.ToolResult{ToolName: fmt.Sprint(w), Content: fmt.Sprint(i)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	var subs []*Subscription
	for i := 0; i < 4; i++ {
		time.Sleep(time.Duration(i) * 3 * time.Millisecond)
		sub, err := svc.Subscribe(ctx, sess.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		subs = append(subs, sub)
	}
	wg.Wait()
	for i, sub := range subs {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var want int64 = 1
		for want <= writers*each {
			ev, err := sub.Next(rctx)
			if err != nil {
				t.Fatalf("subscriber %d after seq %d: %v", i, want-1, err)
			}
			if ev.Seq == 0 {
				continue
			}
			if ev.Seq != want {
				t.Fatalf("subscriber %d got seq %d, want %d", i, ev.Seq, want)
			}
			want++
		}
		cancel()
	}
	// Resuming after a seq replays only what follows.
	sub, err := svc.Subscribe(ctx, sess.ID, writers*each-2)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for _, want := range []int64{writers*each - 1, writers * each} {
		if ev, err := sub.Next(ctx); err != nil || ev.Seq != want {
			t.Fatalf("resumed: seq %d (%v), want %d", ev.Seq, err, want)
		}
	}
}

func TestPromptLifecycle(t *testing.T) {
	var seen *Turn
	var svc *Service
	svc, _, sess := newService(t, runnerFunc(func(ctx context.Context, tn *Turn) (*TurnResult, error) {
		seen = tn
		if got, _ := svc.Open(ctx, tn.SessionID); got.Status != store.StatusGenerating {
			t.Errorf("status during the turn = %s", got.Status)
		}
		return simpleTurn(ctx, tn)
	}))
	ctx := context.Background()
	for turn := 1; turn <= 2; turn++ {
		res, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "add a test for Parse"})
		if err != nil || res.Turn != turn {
			t.Fatalf("turn %d: %+v, %v", turn, res, err)
		}
	}
	if seen.Number != 2 || seen.Mode != "agent" || seen.Model != "m" || seen.Workspace == nil {
		t.Errorf("turn = %+v", seen)
	}
	// The second turn started from the first one's conversation.
	if n := seen.History.Len(); n != 4 {
		t.Errorf("history has %d entries after turn 2, want 4", n)
	}
	got, _ := svc.Open(ctx, sess.ID)
	if got.Status != store.StatusIdle || got.Title != "add a test for Parse" {
		t.Errorf("session after the turns: status %s title %q", got.Status, got.Title)
	}
	var titles int
	evs, _ := svc.History(ctx, sess.ID)
	for _, ev := range evs {
		if _, ok := ev.Data.(event.TitleChanged); ok {
			titles++
			if ev.Seq != 3 {
				t.Errorf("title at seq %d, want right after the first user message", ev.Seq)
			}
		}
	}
	if titles != 1 {
		t.Errorf("%d title events, want 1", titles)
	}
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "  "}); err == nil {
		t.Error("empty prompt accepted")
	}
	if _, err := svc.Prompt(ctx, "missing", PromptInput{Text: "x"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("prompt to a missing session: %v", err)
	}
}

func TestPromptBusyAndAbort(t *testing.T) {
	started := make(chan struct{})
	svc, _, sess := newService(t, runnerFunc(func(ctx context.Context, tn *Turn) (*TurnResult, error) {
		close(started)
		<-ctx.Done()
		return &TurnResult{Turn: tn.Number, Status: event.FinishCanceled}, nil
	}))
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "long"})
		done <- err
	}()
	<-started
	if !svc.Busy(sess.ID) {
		t.Error("not busy during a turn")
	}
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "again"}); !errors.Is(err, ErrBusy) {
		t.Errorf("second prompt: %v, want ErrBusy", err)
	}
	if !svc.Abort(sess.ID) {
		t.Error("Abort found no turn")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if svc.Busy(sess.ID) || svc.Abort(sess.ID) {
		t.Error("still busy after the turn ended")
	}
}

func TestPromptRefusedOrFailed(t *testing.T) {
	tests := []struct {
		name   string
		run    func(ctx context.Context, tn *Turn) (*TurnResult, error)
		status store.Status
		errs   bool
	}{
		{"refused before starting", func(context.Context, *Turn) (*TurnResult, error) { return nil, errors.New("bad @path") }, store.StatusIdle, true},
		{"failed turn", func(ctx context.Context, tn *Turn) (*TurnResult, error) {
			if _, err := tn.Emit(ctx, event.TurnStarted{}); err != nil {
				return nil, err
			}
			return &TurnResult{Status: event.FinishFailed}, nil
		}, store.StatusError, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, sess := newService(t, runnerFunc(tt.run))
			_, err := svc.Prompt(context.Background(), sess.ID, PromptInput{Text: "x"})
			if (err != nil) != tt.errs {
				t.Fatalf("err = %v", err)
			}
			got, _ := svc.Open(context.Background(), sess.ID)
			if got.Status != tt.status {
				t.Errorf("status %s, want %s", got.Status, tt.status)
			}
		})
	}
}

func TestNewTurnDetached(t *testing.T) {
	var published []event.Event
	tn := NewTurn("s", 1, nil, PromptInput{Text: "x"}, nil, func(_ context.Context, p event.Payload) (event.Event, error) {
		ev := event.Event{Session: "s", Data: p}
		published = append(published, ev)
		return ev, nil
	})
	if _, err := tn.Emit(context.Background(), event.UserMessage{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if len(published) != 1 || tn.History.Len() != 1 {
		t.Errorf("published %d, history %d", len(published), tn.History.Len())
	}
	if _, err := (&Turn{History: NewConversation()}).Emit(context.Background(), event.UserMessage{}); err == nil {
		t.Error("a turn without emitter emitted")
	}
}

// finishingRunner emits turn_finished, then holds the turn open until
// release is closed (as the agent still saves its memory after it).
type finishingRunner struct{ finish, release chan struct{} }

func (r finishingRunner) RunTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	if _, err := t.Emit(ctx, event.TurnStarted{Mode: "agent"}); err != nil {
		return nil, err
	}
	<-r.finish
	if _, err := t.Emit(ctx, event.TurnFinished{Status: event.FinishDone}); err != nil {
		return nil, err
	}
	<-r.release
	return &TurnResult{Turn: t.Number, Status: event.FinishDone}, nil
}

// A frontend that has seen turn_finished never hears the session is still
// busy; a second turn still waits until the first has returned.
func TestNotBusyOnceTurnFinishedIsSeen(t *testing.T) {
	r := finishingRunner{finish: make(chan struct{}), release: make(chan struct{})}
	svc, _, sess := newService(t, r)
	ctx := context.Background()
	sub, err := svc.Subscribe(ctx, sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "go"})
		done <- err
	}()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type() == event.TypeTurnStarted {
			if !svc.Busy(sess.ID) {
				t.Error("not busy after turn_started")
			}
			close(r.finish)
		}
		if ev.Type() == event.TypeTurnFinished {
			break
		}
	}
	if svc.Busy(sess.ID) {
		t.Error("busy after turn_finished was published")
	}
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "again"}); !errors.Is(err, ErrBusy) {
		t.Errorf("a second prompt while the first turn returns: %v, want ErrBusy", err)
	}
	close(r.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if svc.Busy(sess.ID) {
		t.Error("busy after the turn returned")
	}
}
