package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// glmTemplate is a GLM-4.5-style chat template (hand-written): calls of
// earlier turns as a name and <arg_key>/<arg_value> pairs. It does not use
// .Tools, so Ollama reports no "tools" capability for the model.
const glmTemplate = `[gMASK]<sop>{{ range .Messages }}<|{{ .Role }}|>
{{ .Content }}{{ range .ToolCalls }}
<tool_call>{{ .Function.Name }}{{ range $k, $v := .Function.Arguments }}
<arg_key>{{ $k }}</arg_key>
<arg_value>{{ $v }}</arg_value>{{ end }}
</tool_call>{{ end }}{{ end }}<|assistant|>
`

// TestGLMDialectEndToEnd: a model without native tools whose template is
// GLM-4.5's is asked for calls in that layout, answers with one (with a
// stray space after the name, which only the GLM reading accepts), and the
// tool runs — the JSON it writes as a file's content stays the text it
// wrote (the tool's schema says content is a string); none of the markup
// is shown.
func TestGLMDialectEndToEnd(t *testing.T) {
	h := newHarness(t, false, harnessOpt{model: []llmtest.ModelOption{llmtest.Template(glmTemplate)}})
	pkg := "{\n  \"name\": \"demo\",\n  \"private\": true\n}\n"
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("I'll create the file.\n<tool_call>write_file \n<arg_key>path</arg_key>\n<arg_value>fixtures/demo.json</arg_value>\n"+
			"<arg_key>content</arg_key>\n<arg_value>\n"+pkg+"\n</arg_value>\n</tool_call>")),
		llmtest.Reply(llmtest.Text("Created fixtures/demo.json. [TASK_COMPLETE]")),
	)
	res := h.prompt("create fixtures/demo.json for the demo")
	if got, ok := h.read("fixtures/demo.json"); !ok || got != pkg {
		t.Errorf("fixtures/demo.json = %q (exists %v), want %q", got, ok, pkg)
	}
	if res.Status != event.FinishDone || res.FinalText != "Created fixtures/demo.json." {
		t.Errorf("result = %+v", res)
	}
	reqs := h.chats()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 0 {
		t.Errorf("the request sent %d native tools to a model without them", len(reqs[0].Tools))
	}
	sys := reqs[0].Messages[0].Content
	mustContain(t, "system prompt", sys, "<arg_key>", "</arg_value>\n</tool_call>", "The tool name on the line right after <tool_call>",
		"### write_file")
	if strings.Contains(sys, `<tool_call>{"name"`) {
		t.Errorf("the system prompt asks a GLM model for <tool_call> JSON:\n%s", sys)
	}
	for _, d := range payloads[event.TextDelta](h.live) {
		if strings.Contains(d.Text, "<tool_call") || strings.Contains(d.Text, "arg_") || strings.Contains(d.Text, "TASK") {
			t.Errorf("text delta leaks markup: %q", d.Text)
		}
	}
	h.checkHistory()
	checkParity(t, h)
}

// guessedTools reports a model's capabilities as unknown with tools
// guessed, as an OpenAI-compatible server does, keeping the template: the
// server's refusal of tools is then met only when the request is sent.
type guessedTools struct{ llm.Provider }

func (p guessedTools) ShowModel(ctx context.Context, model string) (*llm.ModelDetails, error) {
	d, err := p.Provider.ShowModel(ctx, model)
	if err == nil {
		d.Capabilities = llm.Capabilities{Chat: true, Tools: true}
	}
	return d, err
}

// TestToolsRefusedReadsGLM: a GLM model whose tools were guessed refuses
// the native tools (Ollama's "does not support tools"); the request is
// sent again asking for text tool calls in GLM's layout, and the answer to
// that first text request is read as GLM (the stray space after the name
// only the GLM reading accepts) with the tools' parameter types (the JSON
// content stays the text written).
func TestToolsRefusedReadsGLM(t *testing.T) {
	h := newHarness(t, false, harnessOpt{model: []llmtest.ModelOption{llmtest.Template(glmTemplate)},
		wrap: func(p llm.Provider) llm.Provider { return guessedTools{p} }})
	pkg := "{\n  \"name\": \"demo\"\n}\n"
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("<tool_call>write_file \n<arg_key>path</arg_key>\n<arg_value>demo.json</arg_value>\n"+
			"<arg_key>content</arg_key>\n<arg_value>\n"+pkg+"\n</arg_value>\n</tool_call>")),
		llmtest.Reply(llmtest.Text("Created demo.json. [TASK_COMPLETE]")),
	)
	res := h.prompt("create demo.json")
	if got, ok := h.read("demo.json"); !ok || got != pkg {
		t.Errorf("demo.json = %q (exists %v), want %q", got, ok, pkg)
	}
	if res.Status != event.FinishDone {
		t.Errorf("result = %+v", res)
	}
	reqs := h.chats()
	if len(reqs) != 3 || len(reqs[0].Tools) == 0 || len(reqs[1].Tools) != 0 {
		t.Fatalf("%d requests (want the refused one with tools, then two without)", len(reqs))
	}
	mustContain(t, "system prompt of the resent request", reqs[1].Messages[0].Content, "<arg_key>")
}
