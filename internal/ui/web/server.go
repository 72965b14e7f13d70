// Package web is `olly serve`: the chat sidebar in a browser. It serves a
// page of hand-written ES modules and CSS embedded in the binary, and
// speaks RPC mode's protocol (docs/rpc.md) on a WebSocket: each connection
// runs its own protocol server over the shared session service, and the
// timeline of its session is sent alongside as HTML the server rendered
// from internal/timeline (model text through goldmark, chroma and
// bluemonday). The page holds no agent logic: it puts fragments in place
// and turns clicks into protocol commands.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/ui/rpc"
)

// Options configure a server.
type Options struct {
	// RPC is the protocol server every connection runs: everything but
	// In, Out, SessionID, Events and Work, which the connection sets.
	RPC rpc.Options
	// Workspace is the directory olly serve was started in: a page that
	// names no session opens its latest one, or a new one.
	Workspace string
	// NewSession creates a session in the workspace (the model picked
	// as olly --mode rpc picks it); warnings go to the page.
	NewSession func(ctx context.Context) (*store.Session, []string, error)
	// Token is the secret a browser must present; "" makes a random one.
	Token string
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
}

// Server serves the page and its WebSocket.
type Server struct {
	opts   Options
	render *itemRenderer
	css    []byte

	// work runs prompts and the commands that wait, for every
	// connection: a tab that closes or reloads leaves its turn running.
	work *runner

	mu    sync.Mutex
	hosts hostRule
	conns sync.WaitGroup
	// open are the WebSockets being served (dropConnections).
	open map[*websocket.Conn]bool
}

// New builds a server.
func New(opts Options) (*Server, error) {
	if opts.RPC.Sessions == nil || opts.RPC.Approvals == nil || opts.RPC.Store == nil {
		return nil, errors.New("web: the session service, the approval manager and the store are required")
	}
	if opts.Token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("web: make a token: %w", err)
		}
		opts.Token = hex.EncodeToString(b)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	r, err := newItemRenderer()
	if err != nil {
		return nil, err
	}
	css, err := chromaCSS()
	if err != nil {
		return nil, fmt.Errorf("web: highlighting styles: %w", err)
	}
	return &Server{opts: opts, render: r, css: css, work: newRunner(), open: map[*websocket.Conn]bool{}}, nil
}

// Token returns the secret the page's URL carries.
func (s *Server) Token() string { return s.opts.Token }

// Serve serves on ln until ctx ends; then it closes the connections,
// cancels running turns (their pending approvals end canceled), waits
// for them and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	rule, err := hostRuleFor(ln.Addr())
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.hosts = rule
	s.mu.Unlock()
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return s.work.ctx }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		s.stop()
		return fmt.Errorf("web: %w", err)
	}
	// Canceling the work context ends every WebSocket (their handlers
	// run under it), then Shutdown waits for the handlers.
	s.stop()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	<-errc
	return nil
}

// stop cancels running work and waits for it and for the connections.
func (s *Server) stop() {
	s.work.stop()
	s.conns.Wait()
}

// URL is the address to open: the page, with the token.
func URL(ln net.Listener, token string) string {
	return fmt.Sprintf("http://%s/?token=%s", displayAddr(ln.Addr()), token)
}

// Handler returns the server's routes behind its guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveIndex)
	mux.Handle("GET /assets/", assetHandler())
	mux.HandleFunc("GET /chroma.css", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		_, _ = w.Write(s.css)
	})
	mux.HandleFunc("GET /ws", s.serveWS)
	return s.guard(mux)
}

// runner runs work that outlives connections (rpc.Runner).
type runner struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// mu orders Go's Add before stop's Wait: a connection still being
	// handled while the server stops may ask for work then (an Add racing
	// a Wait on a zero counter is a misuse of WaitGroup, and that work
	// would outlive stop).
	mu      sync.Mutex
	stopped bool
}

func newRunner() *runner {
	ctx, cancel := context.WithCancel(context.Background())
	return &runner{ctx: ctx, cancel: cancel}
}

// Go runs fn with the runner's context in a goroutine stop waits for;
// once stop has begun, fn is not run (its context is canceled: the
// server is going away).
func (r *runner) Go(fn func(ctx context.Context)) {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		fn(r.ctx)
	}()
}

func (r *runner) stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}

// checkToken compares a presented token with the server's in constant time.
func (s *Server) checkToken(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
}

// session returns the session a page opens: the one it names, or the
// workspace's latest, or a new one.
func (s *Server) session(ctx context.Context, ref string) (*store.Session, []string, error) {
	svc := s.opts.RPC.Sessions
	if ref != "" {
		sess, err := svc.Find(ctx, ref)
		return sess, nil, err
	}
	sess, err := svc.Latest(ctx, s.opts.Workspace)
	if err == nil {
		return sess, nil, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, nil, err
	}
	if s.opts.NewSession == nil {
		return nil, nil, errors.New("no session in this workspace and none can be created here")
	}
	return s.opts.NewSession(ctx)
}

// track adds or removes a WebSocket being served.
func (s *Server) track(ws *websocket.Conn, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.open[ws] = true
	} else {
		delete(s.open, ws)
	}
}

// dropConnections closes every page's WebSocket as a network failure
// would; the pages reconnect by themselves (tests of resuming).
func (s *Server) dropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ws := range s.open {
		_ = ws.CloseNow()
	}
}
