package openai_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/openai"
)

func TestListAndShowModels(t *testing.T) {
	cases := []struct {
		name   string
		flavor llmtest.Flavor
		// listed are the names /v1/models gives; known: capabilities come
		// from Ollama's /api/show.
		listed []string
		known  bool
		window int
	}{
		// Behind Ollama's /v1 the window is the one the loaded model runs
		// with (/api/ps), not the trained one: /v1 cannot set num_ctx.
		{name: "ollama: tagged names, details from /api/show", flavor: llmtest.FlavorOllama,
			listed: []string{"Qwen/Qwen3-8B:latest", "other:latest"}, known: true, window: 8192},
		{name: "vLLM max_model_len", flavor: llmtest.FlavorVLLM, listed: []string{"Qwen/Qwen3-8B", "other"}, window: 32768},
		{name: "llama.cpp n_ctx_train", flavor: llmtest.FlavorLlamaCpp, listed: []string{"Qwen/Qwen3-8B", "other"}, window: 32768},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithFlavor(tc.flavor))
			srv.AddModel("Qwen/Qwen3-8B", llmtest.ContextLength(32768), llmtest.Caps("completion"), llmtest.ServerContext(8192), llmtest.Running())
			srv.AddModel("other")
			c, _ := newClient(t, srv)
			list, err := c.ListModels(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			when := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			if d := cmp.Diff([]llm.ModelInfo{{Name: tc.listed[0], ModifiedAt: when}, {Name: tc.listed[1], ModifiedAt: when}}, list); d != "" {
				t.Errorf("models (-want +got):\n%s", d)
			}
			// Asked without the tag, as a person types it.
			d, err := c.ShowModel(context.Background(), "Qwen/Qwen3-8B")
			if err != nil {
				t.Fatal(err)
			}
			// Without Ollama's capabilities, tools are assumed; with them,
			// this model has none.
			if d.Capabilities.Known != tc.known || !d.Capabilities.Chat || d.Capabilities.Tools == tc.known || d.ContextLength != tc.window {
				t.Errorf("details %+v", d)
			}
			o, err := c.ShowModel(context.Background(), "other:latest")
			if err != nil {
				t.Errorf("tagged name: %v", err)
			} else if tc.known && o.ContextLength != 4096 {
				t.Errorf("a model not loaded by Ollama: window %d, want Ollama's default 4096", o.ContextLength)
			}
			_, err = c.ShowModel(context.Background(), "missing")
			e := wiretest.AsError(t, err, llm.KindModelNotFound)
			if e.Model != "missing" || !strings.Contains(err.Error(), "olly models") {
				t.Errorf("error %v", err)
			}
			// One list for the whole command, not one per model shown;
			// behind Ollama one list of running models too.
			n := map[string]int{}
			for _, r := range srv.Requests() {
				n[r.Path]++
			}
			if n["/v1/models"] != 1 {
				t.Errorf("/v1/models fetched %d times, want 1", n["/v1/models"])
			}
			if want := map[bool]int{true: 1, false: 0}[tc.known]; n["/api/ps"] != want {
				t.Errorf("/api/ps fetched %d times, want %d", n["/api/ps"], want)
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	srv := wiretest.NewServer(t)
	embed := llmtest.HashEmbedder(12)
	srv.SetEmbedder(embed)
	c, _ := newClient(t, srv)
	in := []string{"alpha beta", "gamma", "alpha"}
	resp, err := c.Embed(context.Background(), &llm.EmbedRequest{Model: model, Input: in, Dimensions: 6})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{embed("", in[0])[:6], embed("", in[1])[:6], embed("", in[2])[:6]}
	if d := cmp.Diff(want, resp.Embeddings); d != "" || resp.PromptTokens == 0 {
		t.Errorf("(-want +got):\n%s", d)
	}
	got := srv.LastRequest("/v1/embeddings")
	if string(got.Fields["encoding_format"]) != `"float"` || got.Dimensions != 6 || len(got.Input) != 3 {
		t.Errorf("request %s", got.Body)
	}
	srv.EnqueueFor("/v1/embeddings", llmtest.Status(500, "oom"), llmtest.Status(500, "oom"), llmtest.Status(500, "oom"), llmtest.Status(500, "oom"))
	_, err = c.Embed(context.Background(), &llm.EmbedRequest{Model: model, Input: in})
	wiretest.AsError(t, err, llm.KindServer)
}

func TestUnsupportedEndpoints(t *testing.T) {
	srv := wiretest.NewServer(t)
	c, _ := newClient(t, srv)
	if _, err := c.RunningModels(context.Background()); llm.KindOf(err) != llm.KindUnsupported {
		t.Errorf("RunningModels: %v", err)
	}
	if _, err := c.Version(context.Background()); llm.KindOf(err) != llm.KindUnsupported {
		t.Errorf("Version: %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Error("an unsupported call reached the server")
	}
}

func TestBaseURLWithOrWithoutV1(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://localhost:8080", "http://localhost:8080"},
		{"http://localhost:8080/v1", "http://localhost:8080"},
		{"localhost:8080/v1/", "http://localhost:8080"},
		{"https://api.example.com/openai/v1", "https://api.example.com/openai"},
	}
	for _, tc := range cases {
		c, err := openai.New(tc.in)
		if err != nil || c.BaseURL() != tc.want || c.Dialect() != "openai" {
			t.Errorf("New(%q): %q, %v; want %q", tc.in, c.BaseURL(), err, tc.want)
		}
	}
	if _, err := openai.New("::"); err == nil || !strings.Contains(err.Error(), "http://localhost:8080/v1") {
		t.Errorf("invalid URL error %v", err)
	}
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("ok")))
	c, _ := openai.New(srv.URL() + "/v1/")
	wiretest.Chat(t, c, wiretest.ChatReq(model))
}

func TestAPIKey(t *testing.T) {
	srv := wiretest.NewServer(t, llmtest.WithToken("sk-test"))
	c, _ := newClient(t, srv, openai.WithAPIKey("sk-test"), openai.WithUserAgent("olly-test"), openai.WithHTTPClient(srv.Client()))
	if _, err := c.ListModels(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := srv.LastRequest("/v1/models").Header
	if h.Get("Authorization") != "Bearer sk-test" || h.Get("User-Agent") != "olly-test" {
		t.Errorf("headers %v", h)
	}
	bad, sleeps := newClient(t, srv, openai.WithAPIKey("wrong"))
	_, err := bad.ListModels(context.Background())
	wiretest.AsError(t, err, llm.KindAuth)
	if len(sleeps.Waits()) != 0 {
		t.Error("auth failure retried")
	}
}
