package ollama_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

func TestListModels(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Family("qwen3"), llmtest.ParameterSize("8.2B"), llmtest.Quantization("Q4_K_M"), llmtest.Size(5_225_388_164))
	srv.AddModel("nomic-embed-text:latest", llmtest.Family("nomic-bert"), llmtest.ParameterSize("137M"), llmtest.Quantization("F16"))
	c, _ := newClient(t, srv)
	got, err := c.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	want := []llm.ModelInfo{
		{Name: "qwen3:8b", Size: 5_225_388_164, ModifiedAt: when, Format: "gguf", Family: "qwen3", Families: []string{"qwen3"}, ParameterSize: "8.2B", QuantizationLevel: "Q4_K_M"},
		{Name: "nomic-embed-text:latest", Size: 5_000_000_000, ModifiedAt: when, Format: "gguf", Family: "nomic-bert", Families: []string{"nomic-bert"}, ParameterSize: "137M", QuantizationLevel: "F16"},
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(llm.ModelInfo{}, "Digest")); d != "" {
		t.Errorf("models (-want +got):\n%s", d)
	}
	if len(got[0].Digest) != 64 {
		t.Errorf("digest %q", got[0].Digest)
	}
}

func TestShowModelCapabilitiesAndContextLength(t *testing.T) {
	cases := []struct {
		name   string
		opts   []llmtest.ModelOption
		caps   llm.Capabilities
		ctxLen int
	}{
		{name: "every capability", opts: []llmtest.ModelOption{llmtest.Caps("completion", "insert", "tools", "vision", "embedding", "thinking"), llmtest.ContextLength(40960)},
			caps:   llm.Capabilities{Known: true, Chat: true, FIM: true, Tools: true, Vision: true, Embedding: true, Thinking: true, Raw: []string{"completion", "insert", "tools", "vision", "embedding", "thinking"}},
			ctxLen: 40960},
		{name: "embedding only, no context length", opts: []llmtest.ModelOption{llmtest.Caps("embedding"), llmtest.Family("nomic-bert")},
			caps: llm.Capabilities{Known: true, Embedding: true, Raw: []string{"embedding"}}},
		{name: "chat and tools", opts: []llmtest.ModelOption{llmtest.Caps("completion", "tools"), llmtest.Family("llama"), llmtest.ContextLength(131072)},
			caps: llm.Capabilities{Known: true, Chat: true, Tools: true, Raw: []string{"completion", "tools"}}, ctxLen: 131072},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.AddModel("m:1", tc.opts...)
			c, _ := newClient(t, srv)
			d, err := c.ShowModel(context.Background(), "m:1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.caps, d.Capabilities); diff != "" {
				t.Errorf("capabilities (-want +got):\n%s", diff)
			}
			if d.ContextLength != tc.ctxLen || d.Name != "m:1" || d.Family == "" || d.Info["general.architecture"] != d.Family {
				t.Errorf("details %+v", d)
			}
			if string(srv.LastRequest("/api/show").Fields["model"]) != `"m:1"` {
				t.Errorf("show request %s", srv.LastRequest("/api/show").Body)
			}
		})
	}
}

func TestShowUnknownModel(t *testing.T) {
	srv := wiretest.NewServer(t)
	c, sleeps := newClient(t, srv)
	_, err := c.ShowModel(context.Background(), "nope:1b")
	e := wiretest.AsError(t, err, llm.KindModelNotFound)
	if e.Model != "nope:1b" || !strings.Contains(err.Error(), "ollama pull nope:1b") || len(sleeps.Waits()) != 0 {
		t.Errorf("error %v, waits %v", err, sleeps.Waits())
	}
}

func TestRunningModels(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.AddModel("idle:1b")
	srv.AddModel("loaded:3b", llmtest.Running(), llmtest.Family("llama"))
	srv.Enqueue(llmtest.Reply(llmtest.Text("hi")))
	c, _ := newClient(t, srv)
	wiretest.Chat(t, c, &llm.ChatRequest{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Options: llm.Options{NumCtx: llm.Ptr(16384)}})
	got, err := c.RunningModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]llm.RunningModel{}
	for _, m := range got {
		names[m.Name] = m
	}
	if len(got) != 2 || names[model].ContextLength != 16384 || names["loaded:3b"].Family != "llama" || names[model].ExpiresAt.Before(time.Now()) || names[model].SizeVRAM == 0 {
		t.Errorf("running models %+v", got)
	}
}

func TestEmbed(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.AddModel("nomic-embed-text:latest", llmtest.Caps("embedding"))
	embed := llmtest.HashEmbedder(16)
	srv.SetEmbedder(embed)
	c, _ := newClient(t, srv)
	in := []string{"open the file", "close the door"}
	resp, err := c.Embed(context.Background(), &llm.EmbedRequest{Model: "nomic-embed-text", Input: in, Truncate: llm.Ptr(false), Dimensions: 8, KeepAlive: "-1"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{embed("", in[0])[:8], embed("", in[1])[:8]}
	if d := cmp.Diff(want, resp.Embeddings); d != "" || resp.PromptTokens == 0 {
		t.Errorf("embeddings (-want +got):\n%s (prompt tokens %d)", d, resp.PromptTokens)
	}
	got := srv.LastRequest("/api/embed")
	var raw struct {
		Input     []string        `json:"input"`
		Truncate  *bool           `json:"truncate"`
		KeepAlive json.RawMessage `json:"keep_alive"`
	}
	_ = json.Unmarshal(got.Body, &raw)
	if d := cmp.Diff(in, raw.Input); d != "" || raw.Truncate == nil || *raw.Truncate || string(raw.KeepAlive) != "-1" || got.Dimensions != 8 {
		t.Errorf("request %s", got.Body)
	}
}

func TestEmbedFailures(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.SetEmbedder(llmtest.HashEmbedder(4))
	srv.EnqueueFor("/api/embed", llmtest.Status(500, "out of memory"), llmtest.Status(500, "out of memory"), llmtest.Status(500, "out of memory"), llmtest.Status(500, "out of memory"))
	c, sleeps := newClient(t, srv)
	_, err := c.Embed(context.Background(), &llm.EmbedRequest{Model: model, Input: []string{"x"}})
	wiretest.AsError(t, err, llm.KindServer)
	if len(sleeps.Waits()) != 3 {
		t.Errorf("waits %v", sleeps.Waits())
	}
	_, err = c.Embed(context.Background(), &llm.EmbedRequest{Model: "missing", Input: []string{"x"}})
	wiretest.AsError(t, err, llm.KindModelNotFound)
}

func TestVersionAndRetriedGet(t *testing.T) {
	srv := wiretest.NewServer(t, llmtest.WithVersion("0.13.0"))
	srv.EnqueueFor("/api/version", llmtest.Disconnect(), llmtest.Status(502, "bad gateway"))
	c, sleeps := newClient(t, srv)
	v, err := c.Version(context.Background())
	if err != nil || v != "0.13.0" {
		t.Fatalf("version %q, %v", v, err)
	}
	if d := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, sleeps.Waits()); d != "" {
		t.Errorf("waits (-want +got):\n%s", d)
	}
}

func TestMalformedJSONResponse(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.EnqueueFor("/api/tags", llmtest.Reply(llmtest.MalformedLine(`{"models":[{"name":`)))
	c, sleeps := newClient(t, srv)
	_, err := c.ListModels(context.Background())
	e := wiretest.AsError(t, err, llm.KindMalformedStream)
	if e.Line != `{"models":[{"name":` || len(sleeps.Waits()) != 0 || e.Op != "GET /api/tags" {
		t.Errorf("error %+v, waits %v", e, sleeps.Waits())
	}
	// A Reply without a fault on such a path answers normally.
	srv.EnqueueFor("/api/tags", llmtest.Reply())
	if _, err := c.ListModels(context.Background()); err != nil {
		t.Errorf("normal answer: %v", err)
	}
}

func TestNewNormalisesTheBaseURL(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{in: "localhost:11434", want: "http://localhost:11434"},
		{in: "  http://127.0.0.1:11434/  ", want: "http://127.0.0.1:11434"},
		{in: "http://host:11434/api", want: "http://host:11434"},
		{in: "http://host:11434/api/", want: "http://host:11434"},
		{in: "https://example.com/ollama/api//", want: "https://example.com/ollama"},
		{in: "http://[::1]:11434", want: "http://[::1]:11434"},
		{in: "", err: "it is empty"},
		{in: "ftp://host", err: `the scheme must be http or https, not "ftp"`},
		{in: "http://", err: "it has no host"},
		{in: "http://host:port", err: "invalid port"},
		{in: "http://host:11434/?x=1", err: "query"},
		{in: "http://user:pw@host", err: "credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			c, err := ollama.New(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "a valid one looks like http://localhost:11434") {
					t.Fatalf("error %v, want one containing %q and an example", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURL() != tc.want || c.Dialect() != "ollama" {
				t.Errorf("BaseURL %q, want %q", c.BaseURL(), tc.want)
			}
		})
	}
}

func TestTokenAndUserAgent(t *testing.T) {
	srv := wiretest.NewServer(t, llmtest.WithToken("s3cret"))
	good, _ := newClient(t, srv, ollama.WithToken("s3cret"), ollama.WithUserAgent("olly-test/1"), ollama.WithHTTPClient(srv.Client()))
	if _, err := good.ListModels(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := srv.LastRequest("/api/tags").Header
	if h.Get("Authorization") != "Bearer s3cret" || h.Get("User-Agent") != "olly-test/1" {
		t.Errorf("headers %v", h)
	}
	bad, sleeps := newClient(t, srv)
	_, err := bad.ListModels(context.Background())
	e := wiretest.AsError(t, err, llm.KindAuth)
	if e.StatusCode != 401 || len(sleeps.Waits()) != 0 || !strings.Contains(err.Error(), "OLLY_API_KEY") {
		t.Errorf("error %v, waits %v", err, sleeps.Waits())
	}
}

func TestLoadRequest(t *testing.T) {
	// A chat without messages only loads the model; Ollama answers with
	// done_reason "load" and the client passes it on.
	srv := wiretest.NewServer(t)
	c, _ := newClient(t, srv)
	s, err := c.Chat(context.Background(), &llm.ChatRequest{Model: model, KeepAlive: "30m"})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := wiretest.Drain(t, s)
	if err != nil || len(chunks) != 1 || chunks[0].DoneReason != llm.DoneLoad {
		t.Errorf("chunks %+v, %v", chunks, err)
	}
}
