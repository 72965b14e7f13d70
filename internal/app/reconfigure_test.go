package app

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// fakeServer is a model server with the test's chat model (and one only
// it has) and a fixed classification.
func fakeServer(t *testing.T, own string) *llmtest.Server {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"), llmtest.ContextLength(32768))
	srv.AddModel(own, llmtest.Caps("completion"), llmtest.ContextLength(8192))
	srv.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"mixed","needsWrite":false,"reasoning":"test"}`)))
	return srv
}

// turnChats are the chat requests of turns (not classifications).
func turnChats(srv *llmtest.Server) []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" && len(r.Format) == 0 {
			out = append(out, r)
		}
	}
	return out
}

func reconfigureApp(t *testing.T, baseURL string) (*App, *config.Config, string) {
	t.Helper()
	ctx := context.Background()
	ws, home := t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
			"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache")},
		Flags: []config.FlagValue{{Flag: "--model", Key: "agentMode.model", Value: "qwen3:8b"}, {Flag: "--base-url", Key: "baseUrl", Value: baseURL},
			{Flag: "--set", Key: "embedding.model", Value: ""}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// No retries: a request that reached the wrong server must not be
	// hidden by a second try.
	quick := func(cfg *config.Config, _ llm.RetryPolicy) (llm.Provider, error) {
		return NewProviderWithRetry(cfg, llm.RetryPolicy{})
	}
	a, err := New(ctx, Options{Config: cfg, Store: st, NewProvider: quick, Approvals: approval.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	return a, cfg, ws
}

// TestReconfigureSwitchesServerBetweenTurns changes baseUrl (and a key
// read only at the start) while a turn streams from server A: that turn
// finishes on A (its next request too), the next turn goes to B, and the listings follow at once.
// Run with -race: the change and the turn run at the same time.
func TestReconfigureSwitchesServerBetweenTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srvA, srvB := fakeServer(t, "only-on-a"), fakeServer(t, "only-on-b")
	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	served := 0
	// The first turn makes two requests: the settings change while the
	// first streams, and the second must still go to A.
	srvA.Handle(func(*llmtest.Request) llmtest.Response {
		mu.Lock()
		served++
		n := served
		mu.Unlock()
		if n == 1 {
			close(started)
			<-release
			return llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"a.txt","content":"a\n"}`))
		}
		return llmtest.Reply(llmtest.Text("from A [TASK_COMPLETE]"))
	})
	srvB.Enqueue(llmtest.Reply(llmtest.Text("from B [TASK_COMPLETE]")))
	a, cfg, ws := reconfigureApp(t, srvA.URL())
	sess, err := a.Sessions.Create(ctx, session.CreateOptions{Workspace: ws, Mode: event.ModeAgent, Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}

	first := make(chan *session.TurnResult, 1)
	go func() {
		res, err := a.Sessions.Prompt(ctx, sess.ID, session.PromptInput{Text: "first"})
		if err != nil {
			t.Errorf("first prompt: %v", err)
		}
		first <- res
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the first turn never reached server A")
	}
	next, err := cfg.WithOverrides(map[string]any{"baseUrl": srvB.URL(), "agent.maxIterations": 7, "approval.mode": "ask"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := a.Reconfigure(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rc.Applied, "baseUrl") || !slices.Contains(rc.Applied, "agent.maxIterations") || !slices.Equal(rc.Restart, []string{"approval.mode"}) {
		t.Errorf("applied %v, restart %v: want baseUrl and agent.maxIterations applied, approval.mode for a restart", rc.Applied, rc.Restart)
	}
	// Listings follow at once, while the turn still runs on A.
	if got := a.Provider.BaseURL(); got != srvB.URL() {
		t.Errorf("App.Provider is at %s, want B (%s)", got, srvB.URL())
	}
	list, err := a.Catalog().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list, func(m models.Model) bool { return m.Name == "only-on-b:latest" }) {
		t.Errorf("the catalog lists %v, want B's models", names(list))
	}
	close(release)
	res := <-first
	if res == nil || res.FinalText != "from A" {
		t.Fatalf("the turn in progress did not finish on A: %+v", res)
	}

	res, err = a.Sessions.Prompt(ctx, sess.ID, session.PromptInput{Text: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalText != "from B" {
		t.Errorf("the next turn answered %q (%s), want B's answer", res.FinalText, res.Error)
	}
	if n := len(turnChats(srvA)); n != 2 {
		t.Errorf("server A got %d turn requests, want the first turn's two", n)
	}
	if n := len(turnChats(srvB)); n != 1 {
		t.Errorf("server B got %d turn requests, want the second turn's", n)
	}
	if got := a.Settings().Agent.MaxIterations; got != 7 {
		t.Errorf("Settings().Agent.MaxIterations = %d, want 7", got)
	}
	if a.Settings().Approval.Mode != "ask" || a.Config.Approval.Mode == "ask" {
		// The settings in use record the new value; App.Config stays the
		// start's (what restart-only keys were built from).
		t.Errorf("approval.mode: settings %q, start %q", a.Settings().Approval.Mode, a.Config.Approval.Mode)
	}
}

// TestReconfigureRefusesABadConnection keeps the running clients when the
// new settings cannot make one.
func TestReconfigureRefusesABadConnection(t *testing.T) {
	ctx := context.Background()
	srv := fakeServer(t, "x")
	a, cfg, _ := reconfigureApp(t, srv.URL())
	a.makeProvider = func(*config.Config, llm.RetryPolicy) (llm.Provider, error) {
		return nil, errors.New("no client for you")
	}
	next, err := cfg.WithOverrides(map[string]any{"baseUrl": "http://other.invalid:11434", "agent.maxIterations": 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reconfigure(ctx, next); err == nil || !strings.Contains(err.Error(), srv.URL()) {
		t.Fatalf("err = %v, want a refusal naming the server kept", err)
	}
	if a.Provider.BaseURL() != srv.URL() || a.Settings() != cfg {
		t.Errorf("a refused change changed the running olly: %s", a.Provider.BaseURL())
	}
}

// TestLiveSettingKeysExist keeps liveKeys true to the registry: a renamed
// key would otherwise silently need a restart.
func TestLiveSettingKeysExist(t *testing.T) {
	cfg, err := config.Load(config.LoadOptions{Workspace: t.TempDir(), Home: t.TempDir(), Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range liveKeys {
		if _, ok := cfg.Entry(k); !ok {
			t.Errorf("liveKeys names %q, which is no setting", k)
		}
	}
	if LiveSetting("storagePath") || !LiveSetting("baseUrl") {
		t.Error("LiveSetting: storagePath needs a restart, baseUrl does not")
	}
}

func names(list []models.Model) []string {
	var out []string
	for _, m := range list {
		out = append(out, m.Name)
	}
	return out
}
