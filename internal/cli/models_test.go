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
	srv.AddModel("m", llmtest.Caps("completion", "insert"), llmtest.ContextLength(8192))
	e := newTestEnv(t)
	code, out, errOut := e.run(t, "--base-url", srv.URL(), "models", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []modelJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got) != 1 || got[0].Name != "m:latest" || got[0].ContextLength != 8192 || !got[0].Capabilities.FIM || got[0].Capabilities.Tools {
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
