package models

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/toolcall"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Every listing fills the models table, drops what the server no longer has,
// and keeps the person's choices; with the server down the cache answers.
func TestListFillsCacheAndServesItOffline(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"), llmtest.ContextLength(40960), llmtest.Family("qwen3"), llmtest.Size(5_000),
		llmtest.Template("{{ range .ToolCalls }}<tool_call>\n{\"name\": \"{{ .Function.Name }}\", \"arguments\": {{ .Function.Arguments }}}\n</tool_call>{{ end }}"))
	srv.AddModel("old:1b", llmtest.Caps("completion"), llmtest.ContextLength(2048))
	cat := ollamaCatalog(t, srv).WithCache(st)
	if _, err := cat.List(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.SetModelEnabled(ctx, "old:1b", false); err != nil {
		t.Fatal(err)
	}
	if err := st.SetModelContextCap(ctx, "qwen3:8b", 8192); err != nil {
		t.Fatal(err)
	}
	list, err := cat.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Model{}
	for _, m := range list {
		got[m.Name] = m
	}
	if q := got["qwen3:8b"]; !q.Enabled || q.NumCtxCap != 8192 || q.Cached || q.Dialect != toolcall.FormatXML {
		t.Errorf("qwen3:8b = %+v: enabled, cap 8192, live, dialect xml", q)
	}
	if o := got["old:1b"]; o.Enabled || o.Dialect != "" {
		t.Errorf("old:1b = %+v: disabled, no dialect", o)
	}
	cached, err := st.Models(ctx)
	if err != nil || len(cached) != 2 {
		t.Fatalf("models table = %+v, %v", cached, err)
	}
	for _, m := range cached {
		if m.Name == "qwen3:8b" && (m.Family != "qwen3" || m.ContextLength != 40960 || m.Size != 5_000 || string(m.Capabilities) == "{}" || m.Dialect != "xml") {
			t.Errorf("cached qwen3:8b = %+v: the listing's facts are recorded", m)
		}
	}

	// The server drops a model, then goes down.
	srv.RemoveModel("old:1b")
	if _, err := cat.List(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	offlineCat := ollamaCatalog(t, srv).WithCache(st)
	list, offline, err := offlineCat.ListOrCached(ctx)
	if err != nil || offline == nil {
		t.Fatalf("ListOrCached: offline %v, err %v: want the cache and why", offline, err)
	}
	if len(list) != 1 || list[0].Name != "qwen3:8b" || !list[0].Cached || !list[0].Capabilities.Tools || list[0].NumCtxCap != 8192 ||
		list[0].Dialect != toolcall.FormatXML {
		t.Fatalf("offline list = %+v: only the installed model, from the cache, with its capabilities, cap and dialect", list)
	}
}

// A disabled model is never picked automatically.
func TestPickAgentSkipsDisabled(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:7b", llmtest.Caps("completion", "tools"), llmtest.Running())
	srv.AddModel("llama3.1:8b", llmtest.Caps("completion", "tools"))
	cat := ollamaCatalog(t, srv).WithCache(st)
	c, err := cat.PickAgent(ctx, "")
	if err != nil || c.Name != "qwen2.5-coder:7b" {
		t.Fatalf("before: %+v %v", c, err)
	}
	if err := st.SetModelEnabled(ctx, "qwen2.5-coder:7b", false); err != nil {
		t.Fatal(err)
	}
	c, err = cat.PickAgent(ctx, "")
	if err != nil || c.Name != "llama3.1:8b" {
		t.Fatalf("after disabling the best model: %+v %v", c, err)
	}
	if err := st.SetModelEnabled(ctx, "llama3.1:8b", false); err != nil {
		t.Fatal(err)
	}
	if c, err := cat.PickAgent(ctx, ""); err == nil {
		t.Fatalf("every model disabled, yet %s was picked", c.Name)
	}
}
