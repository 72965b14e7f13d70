package app

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

func TestStartIndexing(t *testing.T) {
	tests := []struct {
		name  string
		model string
	}{
		{"embedding model set", "nomic-embed-text"},
		{"no embedding model", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := llmtest.New(t)
			srv.AddModel("nomic-embed-text", llmtest.Caps("embedding"))
			srv.SetEmbedder(llmtest.HashEmbedder(32))
			home, ws := t.TempDir(), t.TempDir()
			cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
				Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "c"), "XDG_DATA_HOME=" + filepath.Join(home, "d"), "XDG_STATE_HOME=" + filepath.Join(home, "s")},
				Flags:   []config.FlagValue{{Flag: "--set", Key: "embedding.model", Value: tt.model}}})
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			prov, err := ollama.New(srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
			if err != nil {
				t.Fatal(err)
			}
			a, err := New(ctx, Options{Config: cfg, Store: st, Provider: prov})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var once sync.Once
			caught := make(chan struct{})
			x, err := a.StartIndexing(ctx, func(p store.IndexProgress) {
				if p.Err == nil && p.Total > 0 && p.Done == p.Total {
					once.Do(func() { close(caught) })
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if tt.model == "" {
				if x != nil {
					t.Error("an indexer started with no embedding model")
				}
				return
			}
			sess, err := a.Sessions.Create(ctx, session.CreateOptions{Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Sessions.Emit(ctx, sess.ID, 1, event.UserMessage{Text: "index this prompt"}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-caught:
			case <-time.After(10 * time.Second):
				t.Fatal("the new prompt was not embedded")
			}
			if err := x.Stop(); err != nil {
				t.Error(err)
			}
		})
	}
}
