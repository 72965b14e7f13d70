package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestPrintContinueAndResume(t *testing.T) {
	e := newSessEnv(t)
	older := e.seed(t, e.ws, "an older session")
	time.Sleep(5 * time.Millisecond) // updated times are in milliseconds
	e.script(llmtest.Reply(llmtest.Text("First answer. [TASK_COMPLETE]")))
	e.ok(t, "-p", "first task")
	_, svc := e.open(t)
	ctx := context.Background()
	latest, err := svc.Latest(ctx, e.ws)
	if err != nil || latest.ID == older.ID {
		t.Fatalf("latest: %v, %v", latest, err)
	}

	// --continue: the latest session, and only the new turn's events.
	e.script(llmtest.Reply(llmtest.Text("Second answer. [TASK_COMPLETE]")))
	out, errOut := e.ok(t, "-p", "--continue", "--output", "json", "second task")
	evs := durable(decodeEvents(t, out))
	if len(evs) == 0 || evs[0].Type() != event.TypeTurnStarted || evs[0].Turn != 2 {
		t.Fatalf("--continue printed %d events starting with %v (stderr %s)", len(evs), evs, errOut)
	}
	for _, ev := range evs {
		if ev.Session != latest.ID || ev.Turn != 2 {
			t.Errorf("printed an event of session %s turn %d (%s), want only turn 2 of %s", ev.Session, ev.Turn, ev.Type(), latest.ID)
		}
	}
	cont := latest.ID
	// The model saw the first turn.
	last := e.srv.Requests()[len(e.srv.Requests())-1]
	if !strings.Contains(string(last.Body), "First answer.") {
		t.Error("the continued session's history did not reach the model")
	}

	// --resume with a prefix, and --resume=ID.
	e.script(llmtest.Reply(llmtest.Text("Third. [TASK_COMPLETE]")), llmtest.Reply(llmtest.Text("Fourth. [TASK_COMPLETE]")))
	out, _ = e.ok(t, "-p", "--resume", strings.ToLower(older.ID[:20]), "--output", "json", "third task")
	if evs := durable(decodeEvents(t, out)); len(evs) == 0 || evs[0].Session != older.ID || evs[0].Turn != 2 {
		t.Errorf("--resume PREFIX went to %+v", evs)
	}
	out, _ = e.ok(t, "-p", "--resume="+cont, "fourth task")
	if !strings.Contains(out, "Fourth.") {
		t.Errorf("--resume=ID: %q", out)
	}

	// --resume alone: a picker at the terminal.
	e.script(llmtest.Reply(llmtest.Text("Picked. [TASK_COMPLETE]")))
	recent, _ := svc.Recent(ctx, e.ws, 0)
	term := &pipeTerminal{Reader: strings.NewReader("x\n2\n")}
	code, out, errOut := e.runWith(t, "", term, "-p", "--resume", "--output", "json", "fifth task")
	if code != 0 {
		t.Fatalf("picker: exit %d: %s", code, errOut)
	}
	shown := term.out.String()
	if !strings.Contains(shown, " 1) ") || !strings.Contains(shown, " 2) ") || !strings.Contains(shown, `"x" is not one of the numbers`) {
		t.Errorf("picker showed:\n%s", shown)
	}
	if evs := durable(decodeEvents(t, out)); len(recent) < 2 || len(evs) == 0 || evs[0].Session != recent[1].ID {
		t.Errorf("picked session 2 of %v, events from %+v", recent, evs)
	}

	refusals := []struct {
		name string
		args []string
		want string
	}{
		{"picker without a terminal", []string{"-p", "--resume", "task"}, "needs a terminal"},
		{"--continue without -p", []string{"--continue", "task"}, "olly -p --continue"},
		{"--resume without -p", []string{"--resume", "task"}, "olly -p --resume ID"},
		{"both", []string{"-p", "--continue", "--resume=" + cont, "task"}, "use one"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			code, _, errOut := e.runWith(t, "", nil, r.args...)
			if code != ExitUsage || !strings.Contains(errOut, r.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, r.want)
			}
		})
	}
	code, _, errOut = e.runWith(t, "", nil, "--cwd", t.TempDir(), "-p", "--continue", "task")
	if code != ExitFailure || !strings.Contains(errOut, "no session in") {
		t.Errorf("--continue with no session: exit %d: %s", code, errOut)
	}
}

// durable drops the ephemeral events (deltas, spinners) of a stream.
func durable(evs []event.Event) []event.Event {
	var out []event.Event
	for _, ev := range evs {
		if ev.Durable() {
			out = append(out, ev)
		}
	}
	return out
}

func TestLooksLikeID(t *testing.T) {
	tests := map[string]bool{
		"01JD5ZQ8": true, "01jd5zq8xk": true, "0123": true,
		"fix": false, "add": false, "sha256": true, "hello": false, "ULID1": false, "01J": false,
		"01JD5ZQ8XK01JD5ZQ8XK0123456": false, // 27 characters
	}
	for s, want := range tests {
		if got := looksLikeID(s); got != want {
			t.Errorf("looksLikeID(%q) = %v, want %v", s, got, want)
		}
	}
}

// A plan made in print mode is implemented by the next run with /implement:
// the agent gets the plan as its task.
func TestPrintPlanThenImplement(t *testing.T) {
	e := newSessEnv(t)
	plan := "1. Create main.go printing hello.\n2. Run go run main.go."
	e.script(llmtest.Reply(llmtest.Text(plan + " [TASK_COMPLETE]")))
	out, errOut := e.ok(t, "-p", "/plan add a hello world program")
	if !strings.Contains(out, "Create main.go") {
		t.Fatalf("plan run printed %q (stderr %s)", out, errOut)
	}
	e.script(
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"main.go","content":"package main\n"}`)),
		llmtest.Reply(llmtest.Text("Implemented. [TASK_COMPLETE]")),
	)
	seen := len(e.srv.Requests())
	out, errOut = e.ok(t, "-p", "--continue", "/implement")
	if !strings.Contains(out, "Implemented.") {
		t.Fatalf("/implement printed %q (stderr %s)", out, errOut)
	}
	var first *llmtest.Request
	for _, r := range e.srv.Requests()[seen:] {
		if strings.HasSuffix(r.Path, "/api/chat") {
			first = r
			break
		}
	}
	if first == nil || !strings.Contains(string(first.Body), "Implement this plan:") || !strings.Contains(string(first.Body), "Run go run main.go.") {
		t.Fatalf("the implementing request does not carry the plan: %+v", first)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "main.go")); err != nil {
		t.Errorf("the plan was not implemented: %v", err)
	}
	code, _, errOut := e.runWith(t, "", nil, "-p", "--continue", "/implement 99")
	if code != ExitFailure || !strings.Contains(errOut, "no plan in turn 99") {
		t.Errorf("/implement of a turn without a plan: exit %d: %s", code, errOut)
	}
}
