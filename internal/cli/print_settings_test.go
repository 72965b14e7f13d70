package cli

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestPrintSessionFlagsStoreTheOverrides(t *testing.T) {
	e := newPrintEnv(t)
	e.script(llmtest.Reply(llmtest.Text("Nothing to do. [TASK_COMPLETE]")))
	code, out, errOut := e.runWith(t, "", nil, "-p", "--output", "json", "--explorer-model", "tiny:1b",
		"--sensitive-files", `{"**/*.env": ask, "**": auto}`, "look around")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got *event.SessionSettings
	for _, ev := range decodeEvents(t, out) {
		if p, ok := ev.Data.(event.SessionSettings); ok {
			got = &p
		}
	}
	if got == nil || got.ExplorerModel == nil || *got.ExplorerModel != "tiny:1b" ||
		string(got.SensitivePatterns) != `[{"pattern":"**/*.env","action":"ask"},{"pattern":"**","action":"auto"}]` {
		t.Fatalf("session_settings event: %+v", got)
	}
}

func TestPrintSessionFlagsRefuseBadRules(t *testing.T) {
	e := newPrintEnv(t)
	code, _, errOut := e.runWith(t, "", nil, "-p", "--sensitive-files", `{"**": maybe}`, "look around")
	if code != ExitUsage || !strings.Contains(errOut, "--sensitive-files") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model server before the flags were checked", n)
	}
}
