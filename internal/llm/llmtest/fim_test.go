package llmtest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// The fill-in-the-middle requests: what Ollama and vLLM answer to the
// forms an editor's completion sends.
func TestFIMRequests(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	srv.AddModel("starcoder2:3b", llmtest.Caps("completion"))

	t.Run("suffix with insert", func(t *testing.T) {
		srv.Enqueue(llmtest.Reply(llmtest.Text("mid")))
		resp, body := do(t, srv, "POST", "/api/generate", `{"model":"qwen2.5-coder:1.5b","prompt":"a","suffix":"b","stream":false,"keep_alive":"30m"}`)
		var out struct{ Response string }
		_ = json.Unmarshal(body, &out)
		if resp.StatusCode != 200 || out.Response != "mid" {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		r := srv.LastRequest("/api/generate")
		if r.Prompt != "a" || r.Suffix != "b" || r.Raw || r.KeepAlive != "30m" {
			t.Errorf("decoded %+v", r)
		}
	})
	t.Run("raw prompt without insert", func(t *testing.T) {
		srv.Enqueue(llmtest.Reply(llmtest.Text("x")))
		resp, body := do(t, srv, "POST", "/api/generate", `{"model":"starcoder2:3b","prompt":"<fim_prefix>a<fim_suffix>b<fim_middle>","raw":true,"options":{"stop":["<file_sep>"]}}`)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"response":"x"`) {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if r := srv.LastRequest("/api/generate"); !r.Raw || len(r.Options.Stop) != 1 {
			t.Errorf("decoded %+v", r)
		}
	})
	t.Run("raw with a system prompt is refused", func(t *testing.T) {
		resp, body := do(t, srv, "POST", "/api/generate", `{"model":"starcoder2:3b","prompt":"a","raw":true,"system":"s"}`)
		if resp.StatusCode != 400 || !strings.Contains(string(body), "raw mode does not support template, system, or context") {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})
	t.Run("v1 completions with suffix", func(t *testing.T) {
		srv.Enqueue(llmtest.Reply(llmtest.Text("m")))
		resp, body := do(t, srv, "POST", "/v1/completions", `{"model":"qwen2.5-coder:1.5b","prompt":"a","suffix":"b","stop":["\n"],"max_tokens":64}`)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"text":"m"`) {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		r := srv.LastRequest("/v1/completions")
		if r.Suffix != "b" || r.Prompt != "a" || len(r.Options.Stop) != 1 || *r.Options.NumPredict != 64 {
			t.Errorf("decoded %+v", r)
		}
	})
}

func TestVLLMRefusesSuffix(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithFlavor(llmtest.FlavorVLLM))
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	resp, body := do(t, srv, "POST", "/v1/completions", `{"model":"qwen2.5-coder:1.5b","prompt":"a","suffix":"b"}`)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "suffix is not currently supported") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestWaitRequests(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("m")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := srv.WaitRequests(ctx, "/api/tags", 1); err == nil {
		t.Fatal("WaitRequests returned before any request")
	}
	do(t, srv, "GET", "/api/tags", "")
	if err := srv.WaitRequests(context.Background(), "/api/tags", 1); err != nil {
		t.Fatal(err)
	}
}
