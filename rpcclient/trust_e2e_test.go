package rpcclient

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/rpcproto"
)

// TestTrustPromptOverRPC: a project hook that nobody trusted does not
// run; get_trust_requests shows it with its command; a made-up request id
// is refused; once the client sends the person's "trust" the hook runs on
// the next prompt, and nothing waits any more.
func TestTrustPromptOverRPC(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.ws, ".olly"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("hook.sh", "echo ran >> \"$CLAUDE_PROJECT_DIR/canary.txt\"\n")
	e.write(".olly/settings.json", `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"bash ./hook.sh"}]}]}}`)
	c := e.start("olly")
	w := watch(t, c)
	ctx := ctxT(t)

	got, err := c.GetTrustRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 1 {
		t.Fatalf("requests = %+v, want the hook file", got.Requests)
	}
	r := got.Requests[0]
	if r.Kind != "hook" || r.Name != ".olly/settings.json" || len(r.Runs) != 1 || r.Runs[0].Command != "bash ./hook.sh" ||
		r.Runs[0].Event != "UserPromptSubmit" || len(r.Files) != 1 || r.Files[0] != "hook.sh" {
		t.Fatalf("request = %+v", r)
	}
	var rerr *Error
	if _, err := c.SetTrust(ctx, "hook:.olly/settings.json@0123456789abcdef", rpcproto.TrustDecisionTrust); !errors.As(err, &rerr) ||
		!strings.Contains(rerr.Message, "no such trust request") {
		t.Fatalf("a made-up id: %v", err)
	}

	e.reply(llmtest.Reply(llmtest.Text("Hi. [TASK_COMPLETE]")))
	if _, err := c.Prompt(ctx, PromptRequest{Message: "hello"}); err != nil {
		t.Fatal(err)
	}
	w.finished()
	if s := e.read("canary.txt"); s != "<missing>" {
		t.Fatalf("the untrusted hook ran: %q", s)
	}

	left, err := c.SetTrust(ctx, r.ID, rpcproto.TrustDecisionTrust)
	if err != nil || len(left.Requests) != 0 {
		t.Fatalf("set_trust: %+v, %v", left, err)
	}
	e.reply(llmtest.Reply(llmtest.Text("Again. [TASK_COMPLETE]")))
	if _, err := c.Prompt(ctx, PromptRequest{Message: "again"}); err != nil {
		t.Fatal(err)
	}
	run := w.typ(event.TypeHookRun).Data.(event.HookRun)
	if run.Event != "UserPromptSubmit" || run.Source != ".olly/settings.json" || run.ExitCode != 0 {
		t.Fatalf("hook_run = %+v", run)
	}
	w.finished()
	if s := e.read("canary.txt"); s != "ran\n" {
		t.Fatalf("the trusted hook did not run once: %q", s)
	}
}
