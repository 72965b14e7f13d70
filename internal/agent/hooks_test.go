package agent

import (
	"context"
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

// hookHarness is a harness whose tools get the hooks of settings (a
// settings.json in Claude Code's format, as the user's file).
func hookHarness(t *testing.T, native bool, settings string) *harness {
	t.Helper()
	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, hooks.UserFileName), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(ctx context.Context, turn *session.Turn) (tools.Env, error) {
		root := turn.Workspace.Primary().Path
		files, warns := hooks.Load(hooks.LoadOptions{Workspace: root, ConfigDir: cfgDir})
		if len(warns) > 0 || len(files) != 1 {
			t.Fatalf("hooks.Load: %d files, warnings %q", len(files), warns)
		}
		return tools.Env{Hooks: hooks.New(hooks.Options{Files: files, Workspace: root, Env: os.Environ()})}, nil
	}
	return newHarness(t, native, harnessOpt{toolEnv: func(*harness) func(context.Context, *session.Turn) (tools.Env, error) { return env }})
}

// TestPreToolUseHookBlocksCommand: a PreToolUse hook on Bash refuses rm;
// the command does not run and the model's next request says why.
func TestPreToolUseHookBlocksCommand(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := hookHarness(t, native, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "in=$(cat); case \"$in\" in *'\"command\":\"rm '*) echo 'rm is not allowed here: move files to .trash instead' >&2; exit 2;; esac; exit 0"}]}]}}`)
		h.write("keep.txt", "precious\n")
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("Cleaning up."), h.call("run_terminal_command", `{"command": "rm keep.txt"}`)),
			llmtest.Reply(llmtest.Text("I will leave it. [TASK_COMPLETE]")),
		)
		res := h.prompt("what happens when you run rm keep.txt?")
		if res.Status != event.FinishDone {
			t.Fatalf("result = %+v", res)
		}
		if _, ok := h.read("keep.txt"); !ok {
			t.Fatal("the blocked command ran: keep.txt is gone")
		}
		reqs := h.chats()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		var seen strings.Builder
		for _, m := range reqs[1].Messages {
			seen.WriteString(m.Content + "\n")
		}
		mustContain(t, "the request after the blocked call", seen.String(), "A PreToolUse hook blocked this run_terminal_command call", "rm is not allowed here: move files to .trash instead")
		runs := payloads[event.HookRun](h.live)
		if len(runs) != 1 || !runs[0].Blocked || runs[0].ExitCode != 2 || runs[0].Event != hooks.PreToolUse || runs[0].Tool != "Bash" {
			t.Fatalf("hook_run events = %+v", runs)
		}
		h.checkHistory()
	})
}

// TestPromptAndStopHooks: UserPromptSubmit context reaches the model, a
// Stop hook keeps the turn going once with its reason, and a blocking
// UserPromptSubmit hook refuses the prompt with the hook's reason.
func TestPromptAndStopHooks(t *testing.T) {
	h := hookHarness(t, true, `{"hooks": {
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "in=$(cat); case \"$in\" in *forbidden*) echo 'no forbidden prompts' >&2; exit 2;; esac; echo 'The build command is make check.'"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "in=$(cat); case \"$in\" in *'\"stop_hook_active\":false'*) echo '{\"decision\":\"block\",\"reason\":\"run the tests first\"}';; esac"}]}]}}`)
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
		llmtest.Reply(llmtest.Text("Tests pass. [TASK_COMPLETE]")),
	)
	res := h.prompt("explain the bug")
	if res.Status != event.FinishDone || res.Iterations != 2 {
		t.Fatalf("result = %+v", res)
	}
	reqs := h.chats()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	mustContain(t, "first request", reqs[0].Messages[len(reqs[0].Messages)-1].Content, "explain the bug", "The build command is make check.")
	var second strings.Builder
	for _, m := range reqs[1].Messages {
		second.WriteString(m.Content + "\n")
	}
	mustContain(t, "second request", second.String(), "A Stop hook did not let you finish yet", "run the tests first")
	h.checkHistory()

	_, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "do the forbidden thing"})
	if err == nil || !strings.Contains(err.Error(), "no forbidden prompts") {
		t.Fatalf("a blocked prompt: err = %v", err)
	}
	if len(h.chats()) != 2 {
		t.Fatal("a blocked prompt reached the model")
	}
}

// TestUntrustedProjectHookDoesNotRun: a project's PreToolUse hook that
// nobody trusted neither runs nor blocks; the person is told once.
func TestUntrustedProjectHookDoesNotRun(t *testing.T) {
	canary := filepath.Join(t.TempDir(), "ran")
	env := func(h *harness) func(context.Context, *session.Turn) (tools.Env, error) {
		return func(ctx context.Context, turn *session.Turn) (tools.Env, error) {
			root := turn.Workspace.Primary().Path
			files, _ := hooks.Load(hooks.LoadOptions{Workspace: root})
			return tools.Env{Hooks: hooks.New(hooks.Options{Files: files, Workspace: root, Env: os.Environ()})}, nil
		}
	}
	h := newHarness(t, true, harnessOpt{toolEnv: env})
	h.write(hooks.ProjectFile, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch `+canary+`; exit 2"}]}]}}`)
	h.write("notes.txt", "x\n")
	h.srv.Enqueue(llmtest.Reply(h.call("read_file", `{"path": "notes.txt"}`)))
	h.srv.Handle(func(*llmtest.Request) llmtest.Response {
		return llmtest.Reply(llmtest.Text("Read it. [TASK_COMPLETE]"))
	})
	h.prompt("what is in notes.txt?")
	h.prompt("what is in notes.txt now?")
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	var told int
	for _, w := range payloads[event.Warning](h.live) {
		if w.Code == "hooks_untrusted" && strings.Contains(w.Message, hooks.ProjectFile) && strings.Contains(w.Message, "olly hooks trust") {
			told++
		}
	}
	if told != 1 || len(payloads[event.HookRun](h.live)) != 0 {
		t.Fatalf("told %d times, %d hook runs", told, len(payloads[event.HookRun](h.live)))
	}
	for _, r := range payloads[event.ToolResult](h.live) {
		if r.ToolName == "read_file" && r.IsError {
			t.Fatalf("the read was blocked: %s", r.Content)
		}
	}
}
