package llmtest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// chatBody is an /api/chat body with a system prompt, n user/assistant
// exchanges of about size characters each, and extra top-level fields.
func chatBody(n, size int, extra string) string {
	msgs := []map[string]any{{"role": "system", "content": "You are a helpful agent."}}
	for i := range n {
		msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("question %d %s", i, strings.Repeat("word ", size/5))})
		msgs = append(msgs, map[string]any{"role": "assistant", "content": fmt.Sprintf("answer %d", i)})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "the task"})
	b, _ := json.Marshal(msgs)
	return `{"model":"small","stream":false,"options":{"num_ctx":512},"messages":` + string(b) + extra + `}`
}

func TestOllamaFitsAnOverlongPromptSilently(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("small", llmtest.ContextLength(4096))
	srv.Handle(func(*llmtest.Request) llmtest.Response { return llmtest.Reply(llmtest.Text("ok")) })

	// Fits: nothing cut, and the count reported is the server's own.
	resp, body := do(t, srv, "POST", "/api/chat", chatBody(1, 50, ""))
	r := srv.LastRequest("/api/chat")
	var out struct {
		PromptEvalCount int `json:"prompt_eval_count"`
	}
	_ = json.Unmarshal(body, &out)
	if resp.StatusCode != 200 || r.Truncated || r.NumCtx != 512 || out.PromptEvalCount != r.PromptTokens || r.PromptTokens != llmtest.Tokens(r.Rendered) {
		t.Fatalf("small prompt: %d %s; truncated %v, num_ctx %d, tokens %d", resp.StatusCode, body, r.Truncated, r.NumCtx, r.PromptTokens)
	}

	// Too long: 200 all the same, the oldest exchanges dropped, the system
	// prompt and the last message kept, and a count that is the cut size.
	resp, body = do(t, srv, "POST", "/api/chat", chatBody(20, 200, ""))
	r = srv.LastRequest("/api/chat")
	_ = json.Unmarshal(body, &out)
	if resp.StatusCode != 200 || !r.Truncated || r.PromptTokens < 512 || out.PromptEvalCount >= 512 || out.PromptEvalCount != llmtest.Tokens(r.Rendered) {
		t.Fatalf("long prompt: %d %s; truncated %v, tokens %d", resp.StatusCode, body, r.Truncated, r.PromptTokens)
	}
	if !strings.Contains(r.Rendered, "You are a helpful agent.") || !strings.Contains(r.Rendered, "the task") || strings.Contains(r.Rendered, "question 0 ") {
		t.Errorf("rendered after truncation:\n%s", r.Rendered)
	}

	// The last message alone too long: cut to half the window.
	do(t, srv, "POST", "/api/chat", `{"model":"small","stream":false,"options":{"num_ctx":512},"messages":[{"role":"user","content":"`+strings.Repeat("word ", 2000)+`"}]}`)
	r = srv.LastRequest("/api/chat")
	if !r.Truncated {
		t.Errorf("an overlong last message was not cut")
	}
}

func TestOllamaRefusesAnOverlongPrompt(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("small", llmtest.ContextLength(4096))
	srv.AddModel("rigid", llmtest.ContextLength(4096), llmtest.NoShift())
	// Nothing is scripted: a refused request must not reach the script.

	resp, body := do(t, srv, "POST", "/api/chat", chatBody(20, 200, `,"truncate":false`))
	var e struct{ Error string }
	_ = json.Unmarshal(body, &e)
	var inner struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			NCtx    int    `json:"n_ctx"`
		} `json:"error"`
	}
	if resp.StatusCode != 400 || json.Unmarshal([]byte(e.Error), &inner) != nil || inner.Error.Type != "exceed_context_size_error" || inner.Error.NCtx != 512 {
		t.Errorf("truncate false: %d %s", resp.StatusCode, body)
	}
	if r := srv.LastRequest("/api/chat"); !r.Refused || r.Truncated {
		t.Errorf("refused %v truncated %v", r.Refused, r.Truncated)
	}

	long := `{"model":"rigid","stream":false,"options":{"num_ctx":512},"messages":[{"role":"user","content":"` + strings.Repeat("word ", 2000) + `"}]}`
	resp, body = do(t, srv, "POST", "/api/chat", long)
	_ = json.Unmarshal(body, &e)
	if resp.StatusCode != 400 || !strings.HasPrefix(e.Error, "the prompt is longer than the context length currently available to the model") {
		t.Errorf("no shift: %d %s", resp.StatusCode, body)
	}
}

func TestOtherServersRefuseAnOverlongPrompt(t *testing.T) {
	for _, tc := range []struct {
		flavor llmtest.Flavor
		want   string
	}{
		{llmtest.FlavorLlamaCpp, "exceed_context_size_error"},
		{llmtest.FlavorVLLM, "maximum context length is 1024 tokens"},
	} {
		srv := llmtest.New(t, llmtest.WithFlavor(tc.flavor))
		srv.AddModel("small", llmtest.ContextLength(1024), llmtest.ServerContext(1024))
		resp, body := do(t, srv, "POST", "/v1/chat/completions", `{"model":"small","messages":[{"role":"user","content":"`+strings.Repeat("word ", 2000)+`"}]}`)
		if resp.StatusCode != 400 || !strings.Contains(string(body), tc.want) {
			t.Errorf("flavor %d: %d %s", tc.flavor, resp.StatusCode, body)
		}
	}
	// Ollama's /v1 fits silently, in the model's default window.
	srv := llmtest.New(t)
	srv.AddModel("small", llmtest.ContextLength(8192))
	srv.Handle(func(*llmtest.Request) llmtest.Response { return llmtest.Reply(llmtest.Text("ok")) })
	resp, _ := do(t, srv, "POST", "/v1/chat/completions", `{"model":"small","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"`+strings.Repeat("word ", 5000)+`"}]}`)
	if r := srv.LastRequest("/v1/chat/completions"); resp.StatusCode != 200 || !r.Truncated || r.NumCtx != 4096 {
		t.Errorf("ollama /v1: %d, truncated %v, window %d", resp.StatusCode, r.Truncated, r.NumCtx)
	}
}

func TestTemplateThatRendersContentInsteadOfCalls(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen25", llmtest.ContentOverCalls())
	srv.AddModel("faithful")
	srv.Handle(func(*llmtest.Request) llmtest.Response { return llmtest.Reply(llmtest.Text("ok")) })
	call := `"tool_calls":[{"function":{"name":"run_terminal_command","arguments":{"command":"echo hi"}}}]`
	for _, tc := range []struct {
		model, content string
		seen           bool
	}{
		{"qwen25", "I ran `echo hi`", false},
		{"qwen25", "", true},
		{"faithful", "I ran `echo hi`", true},
	} {
		do(t, srv, "POST", "/api/chat", `{"model":"`+tc.model+`","stream":false,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"`+tc.content+`",`+call+`},{"role":"tool","content":"hi"}]}`)
		r := srv.LastRequest("/api/chat")
		if got := strings.Contains(r.Rendered, `"name": "run_terminal_command"`); got != tc.seen {
			t.Errorf("%s with content %q: call rendered %v, want %v:\n%s", tc.model, tc.content, got, tc.seen, r.Rendered)
		}
	}
}

func TestEndEarlyWithoutStreaming(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("again again"), llmtest.EndEarly()))
	resp, body := do(t, srv, "POST", "/api/chat", `{"model":"qwen3:8b","stream":false,"messages":[{"role":"user","content":"a"}]}`)
	var out map[string]any
	_ = json.Unmarshal(body, &out)
	if resp.StatusCode != 200 || out["done"] != false || out["prompt_eval_count"] != nil || !strings.Contains(string(body), "again again") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}
