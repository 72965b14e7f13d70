package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/mcp/mcptest"
)

// toolResults are the tool results of a print-mode JSON run, by tool.
func toolResults(t *testing.T, out string) map[string]event.ToolResult {
	t.Helper()
	got := map[string]event.ToolResult{}
	for _, ev := range decodeEvents(t, out) {
		if r, ok := ev.Data.(event.ToolResult); ok {
			got[r.ToolName] = r
		}
	}
	return got
}

// TestPrintCallsARealMCPServer: the scripted model calls a tool of the
// real @modelcontextprotocol/server-everything (a user server from
// mcp.servers, started with node) and gets its answer.
func TestPrintCallsARealMCPServer(t *testing.T) {
	node, script := mcptest.Everything(t)
	e := newPrintEnv(t)
	e.write(t, e.global(), "mcp:\n  servers:\n    everything:\n      command: "+node+"\n      args: ["+script+", stdio]\n")
	e.script(
		llmtest.Reply(llmtest.Text("Adding."), llmtest.ToolCall("mcp__everything__get-sum", `{"a":19,"b":23}`)),
		llmtest.Reply(llmtest.Text("The sum is 42. [TASK_COMPLETE]")),
	)
	code, out, errOut := e.runWith(t, "", nil, "-p", "--yes", "--output", "json", "add 19 and 23 with the MCP tool")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	r, ok := toolResults(t, out)["mcp__everything__get-sum"]
	if !ok || !strings.Contains(r.Content, "42") || r.IsError {
		t.Fatalf("tool result %+v (found %v)\n%s", r, ok, out)
	}
	// The tool was offered to the model with its schema.
	var offered bool
	for _, req := range e.srv.Requests() {
		for _, tool := range req.Tools {
			if tool.Name == "mcp__everything__get-sum" && strings.Contains(tool.Description, "MCP server everything") &&
				strings.Contains(string(tool.Parameters), `"a"`) {
				offered = true
			}
		}
	}
	if !offered {
		t.Error("the model was not offered mcp__everything__get-sum")
	}
}

// TestPrintUntrustedProjectServerDoesNotStart: a project's .mcp.json server
// does not run under --yes; the run goes on and says how to trust it.
func TestPrintUntrustedProjectServerDoesNotStart(t *testing.T) {
	e := newPrintEnv(t)
	marker := filepath.Join(t.TempDir(), "started")
	e.write(t, filepath.Join(e.ws, ".mcp.json"), `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`)
	e.script(llmtest.Reply(llmtest.Text("Nothing to do. [TASK_COMPLETE]")))
	code, out, errOut := e.runWith(t, "", nil, "-p", "--yes", "--output", "json", "hello")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project server started under --yes")
	}
	var warned bool
	for _, ev := range decodeEvents(t, out) {
		if w, ok := ev.Data.(event.Warning); ok && w.Code == "mcp_untrusted" && strings.Contains(w.Message, "olly mcp trust evil") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no mcp_untrusted warning in\n%s", out)
	}
}

// TestPrintServerDyingMidCall: a server that exits during a call gives the
// model a clear tool error, and the session goes on to its answer.
func TestPrintServerDyingMidCall(t *testing.T) {
	e := newPrintEnv(t)
	node, script := mcptest.Flaky(t, t.TempDir())
	e.write(t, e.global(), "mcp:\n  servers:\n    flaky:\n      command: "+node+"\n      args: ["+script+"]\n  allow: [flaky]\n")
	e.script(
		llmtest.Reply(llmtest.ToolCall("mcp__flaky__die", `{}`)),
		llmtest.Reply(llmtest.Text("The server crashed; I stopped there. [TASK_COMPLETE]")),
	)
	code, out, errOut := e.runWith(t, "", nil, "-p", "--output", "json", "use the flaky tool")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	r := toolResults(t, out)["mcp__flaky__die"]
	if !r.IsError || !strings.Contains(r.Content, "MCP server flaky stopped during the call of die") {
		t.Fatalf("tool result %+v\n%s", r, out)
	}
	var failed, final bool
	for _, ev := range decodeEvents(t, out) {
		switch p := ev.Data.(type) {
		case event.MCPServerFailed:
			failed = p.Server == "flaky"
		case event.FinalMessage:
			final = strings.Contains(p.Text, "The server crashed")
		}
	}
	if !failed || !final {
		t.Errorf("mcp_server_failed %v, final answer %v\n%s", failed, final, out)
	}
}

// TestPrintMCPPromptCommand: /mcp__everything__args-prompt CITY sends the
// server's prompt, with its argument filled, as the turn's prompt.
func TestPrintMCPPromptCommand(t *testing.T) {
	node, script := mcptest.Everything(t)
	e := newPrintEnv(t)
	e.write(t, e.global(), "mcp:\n  servers:\n    everything:\n      command: "+node+"\n      args: ["+script+", stdio]\n")
	e.script(llmtest.Reply(llmtest.Text("Sunny. [TASK_COMPLETE]")))
	code, out, errOut := e.runWith(t, "", nil, "-p", "--output", "json", "/mcp__everything__args-prompt Paris")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var user string
	for _, ev := range decodeEvents(t, out) {
		if u, ok := ev.Data.(event.UserMessage); ok {
			user = u.Text
		}
	}
	if user != "What's weather in Paris?" {
		t.Fatalf("prompt sent = %q\n%s", user, out)
	}
	code, _, errOut = e.runWith(t, "", nil, "-p", "/mcp__everything__nosuch")
	if code == 0 || !strings.Contains(errOut, "unknown MCP prompt") {
		t.Errorf("unknown prompt: exit %d, %s", code, errOut)
	}
}
