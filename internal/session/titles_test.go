package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// titleFunc adapts a function to TitleGenerator.
type titleFunc func(ctx context.Context, prompt, model string) (string, error)

func (f titleFunc) GenerateTitle(ctx context.Context, prompt, model string) (string, error) {
	return f(ctx, prompt, model)
}

// syncBuffer is a log destination safe for the background goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestModelTitles(t *testing.T) {
	tests := []struct {
		name string
		gen  titleFunc
		// rename is a title the person sets while the model writes.
		rename string
		want   string
		events []string // title_changed titles, in order
		log    string
	}{
		{name: "the model's title replaces the first-message one",
			gen:  func(context.Context, string, string) (string, error) { return "Parser empty-input fix", nil },
			want: "Parser empty-input fix", events: []string{"fix the parser", "Parser empty-input fix"}},
		{name: "firstMessage: an empty title keeps the first one",
			gen:  func(context.Context, string, string) (string, error) { return "", nil },
			want: "fix the parser", events: []string{"fix the parser"}},
		{name: "a failure keeps the first title and is logged",
			gen:  func(context.Context, string, string) (string, error) { return "", errors.New("model exploded") },
			want: "fix the parser", events: []string{"fix the parser"}, log: "model exploded"},
		{name: "a model that does not answer in time",
			gen: func(ctx context.Context, _, _ string) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			},
			want: "fix the parser", events: []string{"fix the parser"}, log: "did not answer in time"},
		{name: "a name the person chose meanwhile wins",
			gen:    func(context.Context, string, string) (string, error) { return "Model title", nil },
			rename: "My own name", want: "My own name", events: []string{"fix the parser"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var logs syncBuffer
			release := make(chan struct{})
			var gotPrompt, gotModel string
			gen := titleFunc(func(ctx context.Context, prompt, model string) (string, error) {
				gotPrompt, gotModel = prompt, model
				<-release // the turn finishes first: generation never blocks it
				return tt.gen(ctx, prompt, model)
			})
			svc, err := New(Deps{Store: st, Runner: runnerFunc(simpleTurn), Titles: gen, TitleTimeout: 100 * time.Millisecond,
				Log: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := svc.Create(ctx, CreateOptions{Workspace: t.TempDir(), Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "fix the parser\nit crashes on empty input"}); err != nil {
				t.Fatal(err)
			}
			if tt.rename != "" {
				if _, err := st.UpdateSession(ctx, sess.ID, func(x *store.Session) error { x.Title = tt.rename; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			close(release)
			svc.bg.wg.Wait() // the generation ends by itself (Close would cancel it)
			if err := svc.Close(); err != nil {
				t.Fatal(err)
			}
			if gotPrompt != "fix the parser\nit crashes on empty input" || gotModel != "m" {
				t.Errorf("generator got prompt %q model %q", gotPrompt, gotModel)
			}
			got, _ := svc.Open(ctx, sess.ID)
			if got.Title != tt.want {
				t.Errorf("title = %q, want %q", got.Title, tt.want)
			}
			evs, _ := svc.History(ctx, sess.ID)
			var titles []string
			for _, ev := range evs {
				if p, ok := ev.Data.(event.TitleChanged); ok {
					titles = append(titles, p.Title)
					if ev.Turn != 1 {
						t.Errorf("title_changed in turn %d, want 1", ev.Turn)
					}
				}
			}
			if strings.Join(titles, "|") != strings.Join(tt.events, "|") {
				t.Errorf("title events %q, want %q", titles, tt.events)
			}
			if tt.log != "" && !strings.Contains(logs.String(), tt.log) {
				t.Errorf("log does not say %q:\n%s", tt.log, logs.String())
			}
		})
	}
}

// Close cancels a generation in progress and waits for its goroutine.
func TestModelTitleCloseCancels(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	started := make(chan struct{})
	gen := titleFunc(func(ctx context.Context, _, _ string) (string, error) {
		close(started)
		<-ctx.Done() // a model that never answers
		return "", ctx.Err()
	})
	svc, _ := New(Deps{Store: st, Runner: runnerFunc(simpleTurn), Titles: gen, TitleTimeout: time.Hour})
	sess, _ := svc.Create(ctx, CreateOptions{Workspace: t.TempDir()})
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	<-started
	done := make(chan struct{})
	go func() { _ = svc.Close(); close(done) }()
	select {
	case <-done: // goleak (TestMain) checks the goroutine is gone
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the title generation")
	}
}

// Only a new session's first prompt asks for a title, and nothing starts
// after Close.
func TestModelTitleOncePerSession(t *testing.T) {
	calls := 0
	var mu sync.Mutex
	gen := titleFunc(func(context.Context, string, string) (string, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return "Generated", nil
	})
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, _ := New(Deps{Store: st, Runner: runnerFunc(simpleTurn), Titles: gen})
	sess, _ := svc.Create(ctx, CreateOptions{Workspace: t.TempDir()})
	for i := 0; i < 2; i++ {
		if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	svc.bg.wg.Wait()
	if got, _ := svc.Open(ctx, sess.ID); got.Title != "Generated" {
		t.Errorf("title = %q", got.Title)
	}
	_ = svc.Close()
	other, _ := svc.Create(ctx, CreateOptions{Workspace: t.TempDir()})
	if _, err := svc.Prompt(ctx, other.ID, PromptInput{Text: "after close"}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("%d generations, want 1 (the first prompt of the first session)", calls)
	}
}

// The runner's memory is stored on the session row and handed to the next
// turn, also by a new service on the same database.
func TestSessionMemoryPersisted(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "olly.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	runner := runnerFunc(func(ctx context.Context, tn *Turn) (*TurnResult, error) {
		seen = append(seen, string(tn.Memory))
		res, err := simpleTurn(ctx, tn)
		if err == nil {
			res.Memory = json.RawMessage(`{"turn":` + string(rune('0'+tn.Number)) + `}`)
		}
		return res, err
	})
	svc, _ := New(Deps{Store: st, Runner: runner})
	sess, _ := svc.Create(ctx, CreateOptions{Workspace: t.TempDir()})
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "one"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st2, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	svc2, _ := New(Deps{Store: st2, Runner: runner})
	if _, err := svc2.Prompt(ctx, sess.ID, PromptInput{Text: "two"}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "" || seen[1] != `{"turn":1}` {
		t.Errorf("memory handed to the turns: %q", seen)
	}
	got, _ := svc2.Open(ctx, sess.ID)
	if string(got.SessionMemory) != `{"turn":2}` {
		t.Errorf("stored memory = %s", got.SessionMemory)
	}
}
