package lsp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// Manager runs the language servers of one workspace: each is started the
// first time a file of its language is used, restarted (a bounded number of
// times) after a crash, and shut down by Close. It is safe for concurrent
// use.
type Manager struct {
	ws   *workspace.Workspace
	opts Options

	// life is cancelled by Close; it aborts servers still starting.
	life   context.Context
	cancel context.CancelFunc
	starts sync.WaitGroup

	mu     sync.Mutex
	closed bool
	langs  map[string]*langState

	docMu sync.Mutex
	docs  map[string]*document

	detectMu sync.Mutex
	detected []string // languages found in the workspace, for find_symbol
}

// langState is one language's server over the session.
type langState struct {
	server   Server
	client   *client
	starting *startAttempt
	// reported is set once a missing server was logged: it is reported
	// once, then every tool says so in its own result.
	reported bool
	// noted is set once AfterWrite told the model the server is missing
	// or broken.
	noted   bool
	crashes []time.Time
	lastErr error
}

// startAttempt is a start in progress; waiters read err once done closes.
type startAttempt struct {
	done chan struct{}
	err  error
}

// NewManager returns a manager for the workspace's servers. It starts
// nothing until a file is used.
func NewManager(ws *workspace.Workspace, opts Options) *Manager {
	life, cancel := context.WithCancel(context.Background())
	return &Manager{ws: ws, opts: opts.withDefaults(), life: life, cancel: cancel,
		langs: map[string]*langState{}, docs: map[string]*document{}}
}

// Servers returns the server table in use.
func (m *Manager) Servers() []Server { return append([]Server(nil), m.opts.Servers...) }

// Close shuts every server down (shutdown, exit, then a kill after the
// grace period) and waits for them. The manager starts no server after.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.starts.Wait()
	m.mu.Lock()
	var clients []*client
	for _, st := range m.langs {
		if st.client != nil {
			clients = append(clients, st.client)
			st.client = nil
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shutdown()
		}()
	}
	wg.Wait()
	return nil
}

// clientForPath returns the running server for path's language, starting
// it if need be.
func (m *Manager) clientForPath(ctx context.Context, path string) (*client, Server, error) {
	srv, ok := serverFor(m.opts.Servers, path)
	if !ok {
		return nil, Server{}, &NoServerError{Path: m.display(path)}
	}
	c, err := m.clientFor(ctx, srv)
	return c, srv, err
}

// clientFor returns the language's running server. A server that crashed
// is started again after a backoff, unless it crashed MaxRestarts times
// within RestartWindow; a missing server is an *UnavailableError.
func (m *Manager) clientFor(ctx context.Context, srv Server) (*client, error) {
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, ErrClosed
		}
		st := m.langs[srv.Language]
		if st == nil {
			st = &langState{server: srv}
			m.langs[srv.Language] = st
		}
		if c := st.client; c != nil {
			if c.alive() {
				m.mu.Unlock()
				return c, nil
			}
			st.client = nil
			st.crashes = append(st.crashes, time.Now())
			st.lastErr = c.exitError()
		}
		if a := st.starting; a != nil {
			m.mu.Unlock()
			if err := m.waitStart(ctx, srv, a); err != nil {
				return nil, err
			}
			continue
		}
		res, ok := srv.Resolve(m.opts.LookPath)
		if !ok {
			first := !st.reported
			st.reported = true
			m.mu.Unlock()
			if first {
				m.opts.Logger.Warn("no language server installed", "language", srv.Language, "command", srv.Command, "install", srv.Install)
			}
			return nil, &UnavailableError{Language: srv.Language, Command: srv.Command, Install: srv.Install}
		}
		recent := recentCrashes(st.crashes, m.opts.RestartWindow)
		st.crashes = recent
		if len(recent) >= m.opts.MaxRestarts {
			err := &CrashedError{Server: res.Command, Restarts: len(recent), Last: st.lastErr}
			m.mu.Unlock()
			return nil, err
		}
		var delay time.Duration
		if n := len(recent); n > 0 {
			delay = m.opts.RestartBackoff<<(n-1) - time.Since(recent[n-1])
		}
		a := &startAttempt{done: make(chan struct{})}
		st.starting = a
		m.starts.Add(1)
		m.mu.Unlock()
		go m.start(st, res, delay, a)
		if err := m.waitStart(ctx, srv, a); err != nil {
			return nil, err
		}
	}
}

func (m *Manager) waitStart(ctx context.Context, srv Server, a *startAttempt) error {
	select {
	case <-a.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if a.err == nil {
		return nil
	}
	if errors.Is(a.err, ErrClosed) {
		return ErrClosed
	}
	return &UnavailableError{Language: srv.Language, Command: srv.Command, Install: srv.Install, Err: a.err}
}

// start runs one start attempt on the manager's own goroutine, so that a
// caller giving up does not abandon a half-started server; Close waits for
// it.
func (m *Manager) start(st *langState, res Resolved, delay time.Duration, a *startAttempt) {
	defer m.starts.Done()
	c, err := m.launch(st.server, res, delay)
	m.mu.Lock()
	st.starting = nil
	switch {
	case err == nil && m.closed:
		err = ErrClosed
	case err == nil:
		st.client = c
	default:
		// A failed start counts as a crash, so a server that cannot
		// start is not retried in a tight loop.
		st.crashes = append(st.crashes, time.Now())
		st.lastErr = err
	}
	m.mu.Unlock()
	if err != nil && c != nil {
		c.shutdown()
	}
	if err == nil {
		m.reopen(c, st.server)
	}
	a.err = err
	close(a.done)
}

// launch waits out the restart backoff, then starts the process.
func (m *Manager) launch(srv Server, res Resolved, delay time.Duration) (*client, error) {
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-m.life.Done():
			return nil, ErrClosed
		}
	}
	ctx, cancel := context.WithTimeout(m.life, m.opts.StartTimeout)
	defer cancel()
	root := m.ws.Primary().Path
	c, err := startClient(ctx, &m.opts, srv, res, root, m.folders())
	if err != nil && m.life.Err() != nil {
		return nil, ErrClosed
	}
	return c, err
}

func (m *Manager) folders() []WorkspaceFolder {
	var out []WorkspaceFolder
	for _, r := range m.ws.Roots() {
		out = append(out, WorkspaceFolder{URI: FileURI(r.Path), Name: r.Name})
	}
	return out
}

func recentCrashes(crashes []time.Time, window time.Duration) []time.Time {
	var out []time.Time
	for _, t := range crashes {
		if time.Since(t) < window {
			out = append(out, t)
		}
	}
	return out
}

// display is a path as the person sees it.
func (m *Manager) display(path string) string { return m.ws.Rel(path) }
