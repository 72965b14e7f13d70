package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
)

func TestParseSlash(t *testing.T) {
	cases := []struct {
		text  string
		cmd   SlashCommand
		isCmd bool
		err   string
	}{
		{"/plan add caching", SlashCommand{Name: "plan", Args: "add caching"}, true, ""},
		{"  /Review\n  the auth changes ", SlashCommand{Name: "review", Args: "the auth changes"}, true, ""},
		{"/security-review", SlashCommand{Name: "security-review"}, true, ""},
		{"/deep-explore how do sessions work?", SlashCommand{Name: "deep-explore", Args: "how do sessions work?"}, true, ""},
		{"/compact keep the API decisions", SlashCommand{Name: "compact", Args: "keep the API decisions"}, true, ""},
		{"/new", SlashCommand{Name: "new"}, true, ""},
		{"fix /plan later", SlashCommand{Args: "fix /plan later"}, false, ""},
		{"/usr/bin/env is missing", SlashCommand{Args: "/usr/bin/env is missing"}, false, ""},
		{"/ 2 is an error", SlashCommand{Args: "/ 2 is an error"}, false, ""},
		{"//plan is a word", SlashCommand{Args: "/plan is a word"}, false, ""},
		{"  //x", SlashCommand{Args: "  /x"}, false, ""},
		{"/tmp is full", SlashCommand{}, false, "unknown command /tmp"},
		{"/deploy now", SlashCommand{}, false, "/plan <task>"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			cmd, isCmd, err := ParseSlash(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "begin it with //") {
					t.Fatalf("error %v, want one containing %q and the escape hint", err, tc.err)
				}
				return
			}
			if err != nil || isCmd != tc.isCmd || cmd != tc.cmd {
				t.Errorf("ParseSlash = %+v, %v, %v; want %+v, %v", cmd, isCmd, err, tc.cmd, tc.isCmd)
			}
		})
	}
}

func FuzzParseSlash(f *testing.F) {
	for _, s := range []string{"/plan x", "//x", "/ x", "/unknown", "  /new  y", "/a/b", "/ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cmd, isCmd, err := ParseSlash(text)
		switch {
		case err != nil:
			if isCmd {
				t.Fatal("an error and a command")
			}
		case isCmd:
			if _, ok := commandIn(Commands(), cmd.Name); !ok {
				t.Fatalf("unknown command %q accepted", cmd.Name)
			}
		case !strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "//") && cmd.Args != text:
			t.Fatalf("plain text changed: %q → %q", text, cmd.Args)
		}
	})
}

// recorder is a runner that records the turns it was given.
type recorder struct {
	mu    sync.Mutex
	turns []*Turn
}

func (r *recorder) RunTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	r.mu.Lock()
	r.turns = append(r.turns, t)
	r.mu.Unlock()
	return simpleTurn(ctx, t)
}

func (r *recorder) last(t *testing.T) *Turn {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.turns) == 0 {
		t.Fatal("no turn ran")
	}
	return r.turns[len(r.turns)-1]
}

// Mode commands run the rest of the prompt in their mode.
func TestModeCommands(t *testing.T) {
	cases := []struct {
		text, mode, task string
	}{
		{"/plan add caching", "plan", "add caching"},
		{"/review", "review", "Review the uncommitted changes"},
		{"/review the parser", "review", "the parser"},
		{"/security-review", "security-review", "security review of the uncommitted changes"},
		{"/deep-explore how do turns end?", "deep-explore", "how do turns end?"},
		{"/explore what is here?", "explore", "what is here?"},
		{"/chat what is a goroutine?", "chat", "what is a goroutine?"},
		{"//plan as text", "agent", "/plan as text"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			rec := &recorder{}
			svc, _, sess := newService(t, rec)
			res, err := svc.Prompt(context.Background(), sess.ID, PromptInput{Text: tc.text})
			if err != nil {
				t.Fatal(err)
			}
			turn := rec.last(t)
			if string(turn.Mode) != tc.mode || !strings.Contains(turn.Input.Text, tc.task) || res.Command != "" {
				t.Errorf("turn mode %q, text %q, command %q; want %q containing %q", turn.Mode, turn.Input.Text, res.Command, tc.mode, tc.task)
			}
			if strings.HasPrefix(tc.text, "/") && !strings.HasPrefix(tc.text, "//") && strings.HasPrefix(turn.Input.Text, "/") {
				t.Errorf("the command reached the runner: %q", turn.Input.Text)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	rec := &recorder{}
	svc, _, sess := newService(t, rec)
	for _, text := range []string{"/plan", "/deep-explore  ", "/frobnicate now"} {
		if _, err := svc.Prompt(context.Background(), sess.ID, PromptInput{Text: text}); err == nil {
			t.Errorf("%q: no error", text)
		}
	}
	if len(rec.turns) != 0 {
		t.Errorf("%d turns ran for refused commands", len(rec.turns))
	}
}

// compactor records /compact calls and emits a compaction.
type compactor struct {
	instructions []string
	fail         error
}

func (c *compactor) Compact(ctx context.Context, t *Turn, instructions string) error {
	c.instructions = append(c.instructions, instructions)
	if c.fail != nil {
		return c.fail
	}
	_, err := t.Emit(ctx, event.Compaction{Summary: "sum", FirstKeptSeq: 1, Instructions: instructions})
	return err
}

func TestCompactCommand(t *testing.T) {
	rec := &recorder{}
	svc, _, sess := newService(t, rec)
	ctx := context.Background()
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "/compact"}); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("/compact without a compactor: %v", err)
	}
	c := &compactor{}
	svc.compactor = c
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "/compact keep the decisions"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Command != "compact" || res.Status != event.FinishDone || res.Turn != 2 {
		t.Errorf("result = %+v", res)
	}
	if diff := cmp.Diff([]string{"keep the decisions"}, c.instructions); diff != "" {
		t.Errorf("instructions (-want +got):\n%s", diff)
	}
	evs, err := svc.History(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Type() != event.TypeCompaction || last.Turn != 2 {
		t.Errorf("last event = %s turn %d, want the compaction of turn 2", last.Type(), last.Turn)
	}
	if len(rec.turns) != 1 {
		t.Errorf("/compact ran the agent")
	}
	c.fail = errors.New("nothing to compact")
	res, err = svc.Prompt(ctx, sess.ID, PromptInput{Text: "/compact"})
	if err == nil || res == nil || res.Status != event.FinishFailed || !strings.Contains(err.Error(), "nothing to compact") {
		t.Errorf("failed compaction: %+v, %v", res, err)
	}
	// The runner is the compactor when it can compact.
	both := &compactingRunner{recorder: &recorder{}, compactor: &compactor{}}
	svc2, _, sess2 := newService(t, both)
	if _, err := svc2.Prompt(ctx, sess2.ID, PromptInput{Text: "/compact now"}); err != nil {
		t.Fatalf("a runner that compacts: %v", err)
	}
	if len(both.compactor.instructions) != 1 {
		t.Error("the runner's Compact was not used")
	}
}

type compactingRunner struct {
	*recorder
	*compactor
}

func TestNewCommand(t *testing.T) {
	rec := &recorder{}
	svc, _, sess := newService(t, rec)
	ctx := context.Background()
	res, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "/new"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Command != "new" || res.SessionID == "" || res.SessionID == sess.ID || len(rec.turns) != 0 {
		t.Fatalf("result = %+v", res)
	}
	fresh, err := svc.Open(ctx, res.SessionID)
	if err != nil || fresh.Workspace != sess.Workspace || fresh.Model != sess.Model {
		t.Fatalf("new session = %+v, %v", fresh, err)
	}
	// With a prompt, the prompt runs in the new session.
	res, err = svc.Prompt(ctx, sess.ID, PromptInput{Text: "/new /plan a cache"})
	if err != nil {
		t.Fatal(err)
	}
	turn := rec.last(t)
	if res.Command != "new" || turn.SessionID != res.SessionID || turn.SessionID == sess.ID || turn.Mode != "plan" || turn.Input.Text != "a cache" {
		t.Errorf("result %+v, turn in %s mode %s text %q", res, turn.SessionID, turn.Mode, turn.Input.Text)
	}
}

// planRunner answers a plan-mode turn with a plan.
func planRunner(rec *recorder) runnerFunc {
	return func(ctx context.Context, t *Turn) (*TurnResult, error) {
		rec.mu.Lock()
		rec.turns = append(rec.turns, t)
		rec.mu.Unlock()
		for _, p := range []event.Payload{
			event.TurnStarted{Mode: t.Mode},
			event.UserMessage{Text: t.Input.Text},
			event.FinalMessage{Text: "plan of turn " + t.Input.Text, Plan: t.Mode == "plan"},
			event.TurnFinished{Status: event.FinishDone, Iterations: 1},
		} {
			if _, err := t.Emit(ctx, p); err != nil {
				return nil, err
			}
		}
		return &TurnResult{Turn: t.Number, Status: event.FinishDone}, nil
	}
}

func TestImplementPlan(t *testing.T) {
	rec := &recorder{}
	svc, _, sess := newService(t, planRunner(rec))
	ctx := context.Background()
	if _, err := svc.ImplementPlan(ctx, sess.ID, 0); err == nil || !strings.Contains(err.Error(), "/plan") {
		t.Errorf("no plan yet: %v", err)
	}
	for _, text := range []string{"/plan one", "/plan two", "just chat"} {
		if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.ImplementPlan(ctx, sess.ID, 3); err == nil {
		t.Error("turn 3 has no plan, yet it was implemented")
	}
	for _, tc := range []struct {
		turn     int
		wantFrom int
		plan     string
	}{{0, 2, "plan of turn two"}, {1, 1, "plan of turn one"}} {
		if _, err := svc.ImplementPlan(ctx, sess.ID, tc.turn); err != nil {
			t.Fatal(err)
		}
		got := rec.last(t)
		if got.Mode != "agent" || got.Input.FromPlan != tc.wantFrom || got.Input.Text != "Implement this plan:\n\n"+tc.plan {
			t.Errorf("ImplementPlan(%d): mode %s, from %d, text %q", tc.turn, got.Mode, got.Input.FromPlan, got.Input.Text)
		}
	}
	// The same action as a slash command, which every frontend has.
	for _, tc := range []struct {
		text     string
		wantFrom int
	}{{"/implement", 2}, {"/implement 1", 1}} {
		if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: tc.text}); err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		if got := rec.last(t); got.Mode != "agent" || got.Input.FromPlan != tc.wantFrom {
			t.Errorf("%s: mode %s, from %d", tc.text, got.Mode, got.Input.FromPlan)
		}
	}
	before := len(rec.turns)
	for _, text := range []string{"/implement two", "/implement 0", "/implement 3"} {
		if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: text}); err == nil {
			t.Errorf("%q was accepted", text)
		}
	}
	if len(rec.turns) != before {
		t.Errorf("refused /implement commands ran %d turns", len(rec.turns)-before)
	}
}
