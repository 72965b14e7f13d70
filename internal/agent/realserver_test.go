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

// A stream that ends without its final chunk after text and a call (Ollama
// stopping a model that repeats itself) is the answer: a warning says so,
// the call runs, the turn goes on. One that ends before anything arrived is
// a server error that says what came, never "cannot reach".
func TestStreamEndedEarly(t *testing.T) {
	for _, native := range []bool{true, false} {
		t.Run(formatName(native), func(t *testing.T) {
			h := newHarness(t, native, harnessOpt{})
			h.srv.Enqueue(
				llmtest.Reply(llmtest.Text("Writing it now."), h.call("write_file", `{"path": "a.txt", "content": "x"}`), llmtest.Text("\n\n\n\n"), llmtest.EndEarly()),
				llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
			)
			res := h.prompt("create a.txt containing x")
			if res.Status != event.FinishDone {
				t.Fatalf("result %+v", res)
			}
			if got, _ := h.read("a.txt"); got != "x" {
				t.Errorf("a.txt = %q: the call that arrived before the end did not run", got)
			}
			var early []event.Warning
			for _, w := range payloads[event.Warning](h.live) {
				if w.Code == "ended_early" {
					early = append(early, w)
				}
			}
			if len(early) != 1 || !strings.HasPrefix(early[0].Message, "The server stopped the model: it was repeating itself.") {
				t.Errorf("warnings %+v", early)
			}
			h.checkHistory()

			h.srv.Enqueue(llmtest.Reply(llmtest.Thinking("hmm"), llmtest.EndEarly()))
			res = h.prompt("again")
			errs := payloads[event.Error](h.live)
			if res.Status != event.FinishFailed || len(errs) != 1 || errs[0].Kind != "server" ||
				!strings.Contains(errs[0].Message, "stream ended early") || strings.Contains(errs[0].Message, "cannot reach") {
				t.Errorf("result %+v, errors %+v", res, errs)
			}
		})
	}
}

// The classification's JSON call against a model that repeats blank lines
// after its object: the object that arrived is the answer; a call that
// ends before anything arrived is asked once more, then falls back.
func TestClassificationSurvivesAnEarlyEnd(t *testing.T) {
	cases := []struct {
		name    string
		replies []llmtest.Response
		intent  string
	}{
		{"object then blank lines", []llmtest.Response{llmtest.Reply(llmtest.Text(`{"intent": "analyze", "needsWrite": false, "reasoning": "a question"}`), llmtest.Text("\n\n\n"), llmtest.EndEarly())}, event.IntentAnalyze},
		{"nothing, then an answer", []llmtest.Response{llmtest.Reply(llmtest.EndEarly()), llmtest.Reply(llmtest.Text(`{"intent": "analyze", "needsWrite": false}`))}, event.IntentAnalyze},
		{"nothing twice: fallback", []llmtest.Response{llmtest.Reply(llmtest.EndEarly()), llmtest.Reply(llmtest.EndEarly())}, event.IntentMixed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{cfg: Config{Classify: true}})
			a := h.agent
			h.srv.Enqueue(tc.replies...)
			d := a.classify(t.Context(), testModel, "what does main.go do?")
			if d.Intent != tc.intent || h.srv.Pending() != 0 {
				t.Errorf("dispatch %+v, %d replies unused", d, h.srv.Pending())
			}
			if n := len(h.chats()); n != len(tc.replies) {
				t.Errorf("%d requests, want %d", n, len(tc.replies))
			}
		})
	}
}

func formatName(native bool) string {
	if native {
		return "native"
	}
	return "text"
}

// OpenAI dialect against Ollama's /v1 behind something that hides its
// native API (OpenWebUI, a proxy): "coder" is served as "coder:latest",
// tools are assumed, the server refuses them with its real 400, and olly
// switches the model to text tool calls — this turn and the next.
func TestOpenAIDialectModelWithoutTools(t *testing.T) {
	h := newHarness(t, false, harnessOpt{dialect: "openai"})
	h.srv.EnqueueFor("/api/version", llmtest.Status(404, "404 page not found"))
	h.srv.Enqueue(
		llmtest.Reply(h.call("write_file", `{"path": "a.txt", "content": "x"}`)),
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
		llmtest.Reply(llmtest.Text("Nothing to do. [TASK_COMPLETE]")),
	)
	res := h.prompt("create a.txt containing x")
	if res.Status != event.FinishDone {
		t.Fatalf("result %+v", res)
	}
	reqs := h.chats()
	if len(reqs) != 3 || len(reqs[0].Tools) == 0 {
		t.Fatalf("%d requests; the first should have offered tools", len(reqs))
	}
	for i, r := range reqs[1:] {
		if len(r.Tools) != 0 || !strings.Contains(r.Messages[0].Content, "<tool_call>") {
			t.Errorf("request %d after the refusal: tools %d, text call format taught %v", i+2, len(r.Tools), strings.Contains(r.Messages[0].Content, "<tool_call>"))
		}
	}
	if got, _ := h.read("a.txt"); got != "x" {
		t.Errorf("a.txt = %q", got)
	}
	var warned bool
	for _, w := range payloads[event.Warning](h.live) {
		warned = warned || w.Code == "text_tools"
	}
	if !warned || len(payloads[event.Error](h.live)) != 0 {
		t.Errorf("warnings %+v errors %+v", payloads[event.Warning](h.live), payloads[event.Error](h.live))
	}
	// The window was not assumed: with no metadata, the safe default.
	if n := reqs[1].Options.NumCtx; n != nil {
		t.Errorf("num_ctx %d sent on /v1", *n)
	}
	if u := payloads[event.TokenUsage](h.live); len(u) == 0 || u[0].ContextWindow != defaultContextWindow {
		t.Errorf("token usage %+v, want the window %d", u, defaultContextWindow)
	}
	// The next turn starts with text tool calls: no second refusal.
	before := len(h.chats())
	h.prompt("anything else?")
	if r := h.chats()[before]; len(r.Tools) != 0 {
		t.Errorf("second turn offered tools again")
	}
}
