package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestModelsTable(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools", "thinking"), llmtest.ContextLength(40960),
		llmtest.Family("qwen3"), llmtest.ParameterSize("8.2B"), llmtest.Quantization("Q4_K_M"), llmtest.Size(5_200_000_000), llmtest.Running())
	srv.AddModel("nomic-embed-text:latest", llmtest.Caps("embedding"), llmtest.ContextLength(2048))
	e := newTestEnv(t)
	code, out, errOut := e.run(t, "--base-url", srv.URL(), "models")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"NAME", "CONTEXT", "qwen3:8b", "5.2 GB", "qwen3", "8.2B", "Q4_K_M", "40960", "chat tools thinking", "[loaded]", "nomic-embed-text:latest", "embedding"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestModelsJSON(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("m", llmtest.Caps("completion", "insert"), llmtest.ContextLength(8192),
		llmtest.Template("{{ .Content }}{{ range .ToolCalls }}\n<tool_call>{{ .Function.Name }}\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>{{ end }}"))
	e := newTestEnv(t)
	code, out, errOut := e.run(t, "--base-url", srv.URL(), "models", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []modelJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got) != 1 || got[0].Name != "m:latest" || got[0].ContextLength != 8192 || !got[0].Capabilities.FIM || got[0].Capabilities.Tools ||
		got[0].Dialect != "glm" {
		t.Fatalf("got %+v", got)
	}
}

func TestModelsErrors(t *testing.T) {
	srv := llmtest.New(t)
	url := srv.URL()
	srv.Close()
	e := newTestEnv(t, "OLLY_BASE_URL="+url)
	code, _, errOut := e.run(t, "models")
	if code != ExitFailure || !strings.Contains(errOut, "cannot reach Ollama") || !strings.Contains(errOut, "ollama serve") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	e.write(t, e.global(), "baseUrl: 42\n")
	code, _, errOut = e.run(t, "models")
	if code != ExitUsage || !strings.Contains(errOut, "config.yaml:1") {
		t.Fatalf("a broken setting: exit %d, stderr %q", code, errOut)
	}
}

func TestModelsEmptyServerSaysWhatToRun(t *testing.T) {
	srv := llmtest.New(t)
	e := newTestEnv(t)
	code, _, errOut := e.run(t, "--base-url", srv.URL(), "models")
	if code != 0 || !strings.Contains(errOut, "ollama pull") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestModelsCacheAndChoices: `olly models` records what it lists; with the
// server down it shows that list, marked cached; disable hides a model from
// automatic choice and pickers; set --context caps the window sent.
func TestModelsCacheAndChoices(t *testing.T) {
	e := newPrintEnv(t)
	e.srv.AddModel("tiny:1b", llmtest.Caps("completion", "tools"), llmtest.ContextLength(131072),
		llmtest.Template("{{ range .ToolCalls }}[TOOL_CALLS]{{ .Function.Name }}[ARGS]{{ .Function.Arguments }}{{ end }}"))
	code, out, errOut := e.run(t, "models")
	if code != 0 || !strings.Contains(out, "tiny:1b") || !strings.Contains(out, "NUM_CTX") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// A name the models table knows is not checked with the server; an
	// unknown one is, before it is refused.
	asked := len(e.srv.Requests())
	if code, _, errOut := e.run(t, "models", "disable", "tiny:1b"); code != 0 {
		t.Fatalf("disable: exit %d: %s", code, errOut)
	}
	if n := len(e.srv.Requests()) - asked; n != 0 {
		t.Errorf("disable of a cached model asked the server %d times", n)
	}
	if code, _, errOut := e.run(t, "models", "disable", "nope"); code != ExitUsage || !strings.Contains(errOut, "no model \"nope\"") {
		t.Fatalf("disable of an unknown model: exit %d: %s", code, errOut)
	}
	if len(e.srv.Requests()) == asked {
		t.Error("an unknown model was refused without asking the server")
	}
	if code, _, errOut := e.run(t, "models", "set", "qwen3:8b", "--context", "8192"); code != 0 || !strings.Contains(errOut, "8192") {
		t.Fatalf("set --context: exit %d: %s", code, errOut)
	}
	code, out, _ = e.run(t, "models", "--json")
	var got []modelJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	byName := map[string]modelJSON{}
	for _, m := range got {
		byName[m.Name] = m
	}
	if m := byName["tiny:1b"]; m.Enabled || m.NumCtx != 65536 || m.NumCtxFrom != "agent.maxContextWindow" || m.Dialect != "bracket_args" {
		t.Errorf("tiny:1b = %+v: disabled, window capped by agent.maxContextWindow, dialect bracket_args", m)
	}
	if m := byName["qwen3:8b"]; !m.Enabled || m.NumCtxCap != 8192 || m.NumCtx != 8192 || m.NumCtxFrom != "cap" {
		t.Errorf("qwen3:8b = %+v: the per-model cap decides", m)
	}

	// The cap is what the agent sends.
	e.script(llmtest.Reply(llmtest.Text("Hello. [TASK_COMPLETE]")))
	if code, out, errOut := e.runWith(t, "", nil, "-p", "--model", "qwen3:8b", "say hello"); code != 0 {
		t.Fatalf("print: exit %d\n%s\n%s", code, out, errOut)
	}
	sent := false
	for _, r := range e.srv.Requests() {
		if strings.Contains(r.Path, "/api/chat") && strings.Contains(string(r.Body), `"num_ctx":8192`) {
			sent = true
		}
	}
	if !sent {
		t.Error("no chat request carried num_ctx 8192")
	}

	// The server goes down: the cached list, marked as such.
	e.srv.Close()
	code, out, errOut = e.run(t, "models")
	if code != 0 || !strings.Contains(out, "qwen3:8b") || !strings.Contains(out, "[cached]") || !strings.Contains(out, "[disabled]") ||
		!strings.Contains(errOut, "cached when the server was last reached") || !strings.Contains(out, "DIALECT") || !strings.Contains(out, "bracket") {
		t.Fatalf("offline: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
