package agent

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Tests of what a real Ollama does that a well-behaved server would not
// (issue 14), each against the fake server that learned it.

// A native tool call stays visible to the model in its history even with
// a qwen2.5-style template, which renders an assistant message's content
// instead of its tool calls: the message carries only the model's own
// text, and none was written.
func TestNativeCallsStayVisibleWithContentOverCallsTemplates(t *testing.T) {
	h := newHarness(t, true, harnessOpt{model: []llmtest.ModelOption{llmtest.ContentOverCalls()}})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"echo hi"}`)),
		llmtest.Reply(llmtest.Text("Let me check the output."), llmtest.ToolCall("run_terminal_command", `{"command":"echo again"}`)),
		llmtest.Reply(llmtest.Text("Printed hi. [TASK_COMPLETE]")),
	)
	if res := h.prompt("run echo hi"); res.Status != event.FinishDone {
		t.Fatalf("result %+v", res)
	}
	reqs := h.chats()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	// The first call had no text: the model sees the call itself.
	if r := reqs[1].Rendered; !strings.Contains(r, `"name": "run_terminal_command", "arguments": {"command":"echo hi"}`) {
		t.Errorf("the model cannot see its own call in request 2:\n%s", r)
	}
	// The second call came with text: that text is what such a template
	// shows (the model's own words, not olly's summary of the call).
	r := reqs[2].Rendered
	if !strings.Contains(r, "Let me check the output.") || strings.Contains(r, "I ran `echo") {
		t.Errorf("request 3 rendered:\n%s", r)
	}
	for _, m := range reqs[2].Messages {
		if len(m.ToolCalls) > 0 && strings.HasPrefix(m.Content, "I ran") {
			t.Errorf("a native call message carries the summary %q", m.Content)
		}
	}
	h.checkHistory()
}
