package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/hooks"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/tools"
)

// loggingHooks writes a user settings file whose hooks of events append
// their JSON input to a log, and returns a function building a turn's
// runner and one reading the log's inputs.
func loggingHooks(t *testing.T, events ...string) (func(*session.Turn) *hooks.Runner, func() []map[string]any) {
	t.Helper()
	cfgDir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hooks.log")
	groups := map[string]any{}
	for _, ev := range events {
		groups[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat >> '" + logf + "'"}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": groups})
	if err := os.WriteFile(filepath.Join(cfgDir, hooks.UserFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	runner := func(turn *session.Turn) *hooks.Runner {
		root := turn.Workspace.Primary().Path
		files, warns := hooks.Load(hooks.LoadOptions{Workspace: root, ConfigDir: cfgDir})
		if len(warns) > 0 {
			t.Errorf("hooks.Load: %q", warns)
		}
		return hooks.New(hooks.Options{Files: files, Workspace: root, Env: os.Environ()})
	}
	read := func() []map[string]any {
		data, _ := os.ReadFile(logf)
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var in map[string]any
			if line != "" && json.Unmarshal([]byte(line), &in) == nil {
				out = append(out, in)
			}
		}
		return out
	}
	return runner, read
}

// summarise turns hook inputs into "Event:source-or-trigger" words.
func summarise(ins []map[string]any) []string {
	var out []string
	for _, in := range ins {
		s := in["hook_event_name"].(string)
		for _, k := range []string{"source", "trigger"} {
			if v, ok := in[k].(string); ok {
				s += ":" + v
			}
		}
		out = append(out, s)
	}
	return out
}

// TestSessionStartSourcesAndPreCompact: SessionStart fires with source
// startup on a session's first prompt, not on the next, compact on the
// first prompt after /compact (whose PreCompact hooks get trigger manual
// and the person's instructions), and clear on the first prompt of a
// session /new started; a session this olly had not run yet resumes.
func TestSessionStartSourcesAndPreCompact(t *testing.T) {
	runner, read := loggingHooks(t, hooks.SessionStart, hooks.PreCompact)
	env := func(*harness) func(context.Context, *session.Turn) (tools.Env, error) {
		return func(_ context.Context, turn *session.Turn) (tools.Env, error) {
			return tools.Env{Hooks: runner(turn)}, nil
		}
	}
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx, toolEnv: env})
	h.agent.hooksOf = func(turn *session.Turn) any { return runner(turn) }
	readScenario(h, 100)
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("They say things. [TASK_COMPLETE]")))
	h.prompt(readPrompt)
	h.srv.Enqueue(llmtest.Reply(llmtest.Text(summaryText)))
	if _, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "/compact keep the file names"}); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Compacted. [TASK_COMPLETE]")))
	h.prompt("after compacting")
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Still. [TASK_COMPLETE]")))
	h.prompt("and now?") // no SessionStart: nothing new
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("New. [TASK_COMPLETE]")))
	if _, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "/new hello again"}); err != nil {
		t.Fatal(err)
	}
	ins := read()
	got := strings.Join(summarise(ins), " ")
	if want := "SessionStart:startup PreCompact:manual SessionStart:compact SessionStart:clear"; got != want {
		t.Fatalf("hook inputs = %s, want %s", got, want)
	}
	if ins[1]["custom_instructions"] != "keep the file names" {
		t.Errorf("PreCompact input = %v", ins[1])
	}
	runs := payloads[event.HookRun](h.live)
	if len(runs) < 3 || runs[1].Event != hooks.PreCompact || runs[1].ExitCode != 0 {
		t.Errorf("hook_run events = %+v", runs)
	}
	// A session that had turns before this olly ran: resume, once.
	old := &session.Turn{SessionID: "older", Number: 4}
	if a, b := h.agent.startSource(old), h.agent.startSource(old); a != "resume" || b != "" {
		t.Errorf("a resumed session's sources = %q then %q, want resume then none", a, b)
	}
}

// TestPreCompactAuto: an automatic compaction runs the PreCompact hooks
// with trigger auto, and the next prompt's SessionStart says compact.
func TestPreCompactAuto(t *testing.T) {
	runner, read := loggingHooks(t, hooks.SessionStart, hooks.PreCompact)
	env := func(*harness) func(context.Context, *session.Turn) (tools.Env, error) {
		return func(_ context.Context, turn *session.Turn) (tools.Env, error) {
			return tools.Env{Hooks: runner(turn)}, nil
		}
	}
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx, toolEnv: env})
	readScenario(h, compactCtx*3/4) // the last read fills the window past 70%
	h.srv.Enqueue(llmtest.Reply(llmtest.Text(summaryText)), llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")))
	h.prompt(readPrompt)
	if len(payloads[event.Compaction](h.live)) != 1 {
		t.Fatalf("no automatic compaction happened: %d", len(payloads[event.Compaction](h.live)))
	}
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Next. [TASK_COMPLETE]")))
	h.prompt("next")
	if got, want := strings.Join(summarise(read()), " "), "SessionStart:startup PreCompact:auto SessionStart:compact"; got != want {
		t.Fatalf("hook inputs = %s, want %s", got, want)
	}
}

// TestSubagentStopHook: a SubagentStop hook that blocks keeps the
// sub-agent going once with its reason (stop_hook_active is true the
// second time, and the hook lets it end); the Stop hooks of the turn are
// not run for it, and every run is a hook_run event on the session.
func TestSubagentStopHook(t *testing.T) {
	cfgDir := t.TempDir()
	settings := `{"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": "in=$(cat); case \"$in\" in *'\"stop_hook_active\":false'*) echo 'check the tests too' >&2; exit 2;; esac"}]}]}}`
	if err := os.WriteFile(filepath.Join(cfgDir, hooks.UserFileName), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools()}})
	h.agent.toolEnv = func(_ context.Context, turn *session.Turn) (tools.Env, error) {
		root := turn.Workspace.Primary().Path
		files, _ := hooks.Load(hooks.LoadOptions{Workspace: root, ConfigDir: cfgDir})
		return tools.Env{Hooks: hooks.New(hooks.Options{Files: files, Workspace: root, Env: os.Environ()})}, nil
	}
	ro := &roles{
		main: []llmtest.Response{llmtest.Reply(subCall("look", "Look", "")), llmtest.Reply(llmtest.Text("All good. [TASK_COMPLETE]"))},
		sub: func(_ string, step int) llmtest.Response {
			if step == 0 {
				return llmtest.Reply(llmtest.Text("Found it. [TASK_COMPLETE]"))
			}
			return llmtest.Reply(llmtest.Text("Tests checked too. [TASK_COMPLETE]"))
		},
	}
	h.srv.Handle(ro.handle)
	if res := h.prompt("look around"); res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	subs := ro.subRequests()
	if len(subs) != 2 {
		t.Fatalf("%d sub-agent requests, want 2 (the hook kept it going once)", len(subs))
	}
	var second strings.Builder
	for _, m := range subs[1].Messages {
		second.WriteString(m.Content + "\n")
	}
	mustContain(t, "the sub-agent's second request", second.String(), "A SubagentStop hook did not let you finish yet", "check the tests too")
	runs := payloads[event.HookRun](h.live)
	if len(runs) != 2 || runs[0].Event != hooks.SubagentStop || !runs[0].Blocked || runs[1].Blocked {
		t.Fatalf("hook_run events = %+v", runs)
	}
	if r := h.toolResults(); len(r) != 1 || !strings.Contains(r[0].Content, "Tests checked too.") {
		t.Fatalf("the parent got %+v", r)
	}
}
