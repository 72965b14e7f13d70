package models

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/llm/openai"
)

func ollamaCatalog(t *testing.T, srv *llmtest.Server) *Catalog {
	t.Helper()
	c, err := ollama.New(srv.URL(), ollama.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return NewCatalog(c)
}

func TestListMergesDetails(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools", "thinking"), llmtest.ContextLength(40960), llmtest.Family("qwen3"), llmtest.Quantization("Q4_K_M"), llmtest.Running())
	srv.AddModel("nomic-embed-text", llmtest.Caps("embedding"), llmtest.ContextLength(2048))
	list, err := ollamaCatalog(t, srv).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("got %d models", len(list))
	}
	byName := map[string]Model{}
	for _, m := range list {
		byName[m.Name] = m
	}
	q := byName["qwen3:8b"]
	if !q.Capabilities.Tools || !q.Capabilities.Thinking || q.ContextLength != 40960 || !q.Running || q.Family != "qwen3" || q.QuantizationLevel != "Q4_K_M" {
		t.Errorf("qwen3:8b = %+v", q)
	}
	if e := byName["nomic-embed-text:latest"]; !e.Capabilities.Embedding || e.Capabilities.Tools || e.Running {
		t.Errorf("nomic-embed-text = %+v", e)
	}
}

func TestDetailsAreCached(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("m", llmtest.Caps("completion", "tools"))
	c := ollamaCatalog(t, srv)
	for i := 0; i < 3; i++ {
		if _, err := c.Details(context.Background(), "m"); err != nil {
			t.Fatal(err)
		}
	}
	shows := 0
	for _, r := range srv.Requests() {
		if r.Path == "/api/show" {
			shows++
		}
	}
	if shows != 1 {
		t.Fatalf("%d /api/show requests, want 1", shows)
	}
}

func TestPickAgent(t *testing.T) {
	tests := []struct {
		name       string
		configured string
		models     func(*llmtest.Server)
		want       string
		picked     bool
		wantErr    string
	}{
		{"configured wins", "llama3.2", func(s *llmtest.Server) {
			s.AddModel("llama3.2", llmtest.Caps("completion"))
			s.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"), llmtest.Running())
		}, "llama3.2", false, ""},
		{"configured but missing", "ghost", func(s *llmtest.Server) {
			s.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"))
		}, "", false, "ollama pull ghost"},
		{"loaded tool model first", "", func(s *llmtest.Server) {
			s.AddModel("qwen2.5-coder:7b", llmtest.Caps("completion", "tools", "insert"))
			s.AddModel("llama3.1:8b", llmtest.Caps("completion", "tools"), llmtest.Running())
		}, "llama3.1:8b", true, ""},
		{"code model next", "", func(s *llmtest.Server) {
			s.AddModel("llama3.1:8b", llmtest.Caps("completion", "tools"))
			s.AddModel("qwen2.5-coder:7b", llmtest.Caps("completion", "tools", "insert"))
		}, "qwen2.5-coder:7b", true, ""},
		{"skips models without tools", "", func(s *llmtest.Server) {
			s.AddModel("gemma3:4b", llmtest.Caps("completion", "vision"), llmtest.Running())
			s.AddModel("mistral:7b", llmtest.Caps("completion", "tools"))
		}, "mistral:7b", true, ""},
		{"no tool model", "", func(s *llmtest.Server) {
			s.AddModel("gemma3:4b", llmtest.Caps("completion"))
		}, "", false, "none of the installed models (gemma3:4b) supports tool calling — install one, for example `ollama pull"},
		{"nothing installed", "", func(*llmtest.Server) {}, "", false, "no models are installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			tt.models(srv)
			got, err := ollamaCatalog(t, srv).PickAgent(context.Background(), tt.configured)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want || got.Picked != tt.picked || got.Details == nil {
				t.Fatalf("got %+v, want %s picked=%v", got, tt.want, tt.picked)
			}
			if tt.picked && !strings.Contains(got.Reason, "agentMode.model") {
				t.Errorf("reason %q does not say how to choose", got.Reason)
			}
		})
	}
}

func TestPickAgentOpenAIAssumesTools(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithFlavor(llmtest.FlavorVLLM))
	srv.AddModel("Qwen/Qwen3-8B", llmtest.ContextLength(32768))
	c, err := openai.New(srv.URL(), openai.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewCatalog(c).PickAgent(context.Background(), "")
	if err != nil || got.Name != "Qwen/Qwen3-8B" {
		t.Fatalf("got %+v err %v", got, err)
	}
}

func TestListFailsWhenServerIsDown(t *testing.T) {
	srv := llmtest.New(t)
	url := srv.URL()
	srv.Close()
	c, err := ollama.New(url, ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewCatalog(c).List(context.Background())
	if !errors.Is(err, llm.ErrConnection) || !strings.Contains(err.Error(), "ollama serve") {
		t.Fatalf("err = %v", err)
	}
}
