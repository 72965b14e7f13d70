package web

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/settingsvc"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/ui/rpc"
)

const testModel = "coder"

// stack is the whole olly behind a web server: the real app (session
// service, agent, tools, approvals, checkpoints) against the scripted
// model server, served on a loopback port.
type stack struct {
	ws   string
	llm  *llmtest.Server
	app  *app.App
	sess *store.Session
	srv  *Server
	ln   net.Listener
	url  string // the page's URL, with the token
	// home holds the settings files (config/olly/config.yaml).
	home string
	// opts build the web server; stopServer stops the one serving.
	opts       Options
	stopServer func() error
}

// start serves a new web server on addr (the token stays the same).
func (s *stack) start(t testing.TB, addr string) {
	t.Helper()
	var err error
	if s.srv != nil {
		s.opts.Token = s.srv.Token()
	}
	if s.srv, err = New(s.opts); err != nil {
		t.Fatal(err)
	}
	if s.ln, err = net.Listen("tcp", addr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.srv.Serve(ctx, s.ln) }()
	s.stopServer = func() error {
		cancel()
		return <-done
	}
}

// stop stops the web server (its running turns end canceled).
func (s *stack) stop(t testing.TB) {
	t.Helper()
	if s.stopServer == nil {
		return
	}
	if err := s.stopServer(); err != nil {
		t.Error(err)
	}
	s.stopServer = nil
}

// restart stops the web server and starts another on the same address,
// app and store: what the page sees of `olly serve` restarted.
func (s *stack) restart(t testing.TB) {
	t.Helper()
	addr := s.ln.Addr().String()
	s.stop(t)
	s.start(t, addr)
}

func newStack(t testing.TB, files map[string]string) *stack {
	t.Helper()
	ctx := context.Background()
	s := &stack{ws: t.TempDir(), llm: llmtest.New(t)}
	for name, content := range files {
		writeFile(t, filepath.Join(s.ws, name), content)
	}
	s.llm.AddModel(testModel, llmtest.Caps("completion", "thinking", "tools"), llmtest.ContextLength(32768))
	s.llm.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"mixed","needsWrite":false,"reasoning":"scripted"}`)))
	home := t.TempDir()
	s.home = home
	loadOpts := config.LoadOptions{Workspace: s.ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
			"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache")},
		Flags: []config.FlagValue{{Flag: "--model", Key: "agentMode.model", Value: testModel}}}
	// The server's address is in the global file (not a flag), so the
	// settings page can change it.
	writeFile(t, filepath.Join(home, "config", "olly", "config.yaml"), "baseUrl: "+s.llm.URL()+"\n")
	cfg, err := config.Load(loadOpts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := ollama.New(s.llm.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	s.app, err = app.New(ctx, app.Options{Config: cfg, Store: st, Provider: prov, Approvals: approval.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.sess, err = s.app.Sessions.Create(ctx, session.CreateOptions{Workspace: s.ws, Mode: "agent", Model: testModel}); err != nil {
		t.Fatal(err)
	}
	s.opts = Options{Workspace: s.ws, RPC: rpc.Options{
		Sessions: s.app.Sessions, Approvals: s.app.Approvals, Store: st, Version: "test",
		Models: s.app.Catalog(), Checkpoints: s.app.Checkpoints, SetAutoApprove: s.app.SetAutoApprove,
		Trust: app.ProtocolTrust{App: s.app},
		Settings: &settingsvc.Service{
			Load: func() (*config.Config, error) { return config.Load(loadOpts) },
			NewProvider: func(cfg *config.Config) (llm.Provider, error) {
				return app.NewProviderWithRetry(cfg, llm.RetryPolicy{})
			},
			Models: st,
			// As olly serve wires it (internal/cli): a change reaches
			// the running app.
			Live: app.LiveSetting,
			Apply: func(ctx context.Context, cfg *config.Config) ([]string, []string, error) {
				res, err := s.app.Reconfigure(ctx, cfg)
				return res.Applied, res.Restart, err
			},
		},
	}}
	s.start(t, "127.0.0.1:0")
	s.url = URL(s.ln, s.srv.Token())
	t.Cleanup(func() {
		s.stop(t)
		if err := s.app.Close(); err != nil {
			t.Error(err)
		}
		_ = st.Close()
	})
	return s
}

// base is the server's address without the token.
func (s *stack) base() string { return "http://" + s.ln.Addr().String() }

// get requests path with headers, without following redirects.
func (s *stack) get(t testing.TB, path string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
