package agent

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// mistralV11Template is a hand-written template of Mistral's v11+
// tokenizers: each call of an earlier turn as [TOOL_CALLS]name[ARGS]{…}.
// It does not use .Tools, so the model has no "tools" capability.
const mistralV11Template = `{{ range .Messages }}{{ if eq .Role "user" }}[INST]{{ .Content }}[/INST]
{{- else if eq .Role "assistant" }}{{ .Content }}{{ range .ToolCalls }}[TOOL_CALLS]{{ .Function.Name }}[ARGS]{{ .Function.Arguments }}{{ end }}</s>
{{- else if eq .Role "tool" }}[TOOL_RESULTS]{{ .Content }}[/TOOL_RESULTS]{{ end }}{{ end }}`

// TestMistralV11DialectEndToEnd: a model without native tools whose
// template writes v11 calls is shown that form (not the [TOOL_CALLS] array
// of older Mistral templates), answers with it, the tool runs, and none of
// the markup is shown.
func TestMistralV11DialectEndToEnd(t *testing.T) {
	h := newHarness(t, false, harnessOpt{model: []llmtest.ModelOption{llmtest.Template(mistralV11Template)}})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text(`I'll write it.[TOOL_CALLS]write_file[ARGS]{"path": "notes/todo.txt", "content": "buy milk\n"}`)),
		llmtest.Reply(llmtest.Text("Wrote notes/todo.txt. [TASK_COMPLETE]")),
	)
	res := h.prompt("write buy milk into notes/todo.txt")
	if got, ok := h.read("notes/todo.txt"); !ok || got != "buy milk\n" {
		t.Errorf("notes/todo.txt = %q (exists %v)", got, ok)
	}
	if res.Status != event.FinishDone || res.FinalText != "Wrote notes/todo.txt." {
		t.Errorf("result = %+v", res)
	}
	reqs := h.chats()
	if len(reqs) != 2 || len(reqs[0].Tools) != 0 {
		t.Fatalf("%d requests, the first with %d native tools; want 2 requests without", len(reqs), len(reqs[0].Tools))
	}
	sys := reqs[0].Messages[0].Content
	mustContain(t, "system prompt", sys, `[TOOL_CALLS]read_file[ARGS]{"path": "src/main.go"}`, "One [TOOL_CALLS] per call")
	if strings.Contains(sys, "[TOOL_CALLS][{") || strings.Contains(sys, `<tool_call>{"name"`) {
		t.Errorf("the system prompt shows another call form:\n%s", sys)
	}
	for _, d := range payloads[event.TextDelta](h.live) {
		if strings.Contains(d.Text, "[TOOL") || strings.Contains(d.Text, "ARGS]") || strings.Contains(d.Text, "TASK") {
			t.Errorf("text delta leaks markup: %q", d.Text)
		}
	}
	h.checkHistory()
	checkParity(t, h)
}
