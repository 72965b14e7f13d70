package mcp

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/trust"
)

// Options configure a Manager.
type Options struct {
	// Workspace is the folder the servers belong to (trust is per
	// workspace) and where stdio servers start.
	Workspace string
	// Servers are the configured servers (Configured).
	Servers []Server
	// Trust records the person's trust of project servers; nil trusts
	// none of them.
	Trust *trust.Store
	// Wrap confines a stdio server's command (sandbox.Prepare: the
	// helper), changing it before it starts; nil runs it as it is.
	Wrap func(server string, cmd *exec.Cmd) error
	// Unsandboxed names the servers Wrap is not applied to
	// (mcp.unsandboxed).
	Unsandboxed []string
	// Allow lists the servers ("name") and tools ("name/tool") whose calls
	// run without asking (mcp.allow); AutoApproveReadOnly runs tools the
	// server annotates read-only without asking.
	Allow               []string
	AutoApproveReadOnly bool
	// CallTimeout bounds a tool call, prompt or resource read;
	// ConnectTimeout starting and initialising a server.
	CallTimeout, ConnectTimeout time.Duration
	// Environ is the base environment of stdio servers (nil: olly's).
	Environ []string
	// Version is olly's version, sent to servers.
	Version string
	Log     *slog.Logger
}

// Manager owns the connections to one workspace's servers.
type Manager struct {
	opts  Options
	conns map[string]*conn
	order []string
	now   func() time.Time
	wg    sync.WaitGroup

	mu     sync.Mutex
	stderr map[string]*tailBuffer
	told   map[string]bool // session + server: untrusted warning shown
}

// New returns a manager; nothing connects until a turn lists tools.
func New(opts Options) *Manager {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = time.Minute
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	m := &Manager{opts: opts, conns: map[string]*conn{}, now: time.Now,
		stderr: map[string]*tailBuffer{}, told: map[string]bool{}}
	for _, s := range opts.Servers {
		m.conns[s.Name] = &conn{m: m, srv: s}
		m.order = append(m.order, s.Name)
	}
	return m
}

// Servers are the configured servers, in order.
func (m *Manager) Servers() []Server {
	out := make([]Server, 0, len(m.order))
	for _, n := range m.order {
		out = append(out, m.conns[n].srv)
	}
	return out
}

// Trusted reports whether s may start: a user server always, a project
// server once trusted with its current fingerprint.
func (m *Manager) Trusted(s Server) bool { return !s.NeedsTrust() || m.trusted(s) }

func (m *Manager) trusted(s Server) bool {
	return m.opts.Trust.Trusted(m.opts.Workspace, trust.KindMCP, s.Name, s.Fingerprint())
}

func (m *Manager) unsandboxed(name string) bool { return slices.Contains(m.opts.Unsandboxed, name) }

func (m *Manager) stderrFor(name string) *tailBuffer {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.stderr[name]
	if t == nil {
		t = &tailBuffer{max: 8 << 10}
		m.stderr[name] = t
	}
	return t
}

// Tools connects the servers not yet connected (in parallel) and returns
// the bridged tools of those that are, plus mcp_read_resource when one
// serves resources. A server that fails is reported through emit as an
// mcp_server_failed event (once per attempt: the backoff spaces them); an
// untrusted project server is reported once per session as a warning.
func (m *Manager) Tools(ctx context.Context, session string, emit func(ctx context.Context, p event.Payload) error) []tools.Tool {
	if m == nil || len(m.order) == 0 {
		return nil
	}
	var wg sync.WaitGroup
	for _, n := range m.order {
		c := m.conns[n]
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, attempted, err := c.get(ctx)
			if err != nil {
				m.report(ctx, session, emit, c, attempted, err)
			}
		}()
	}
	wg.Wait()
	var out []tools.Tool
	resources := false
	for _, n := range m.order {
		c := m.conns[n]
		if !c.live() {
			continue
		}
		ts, _, hasRes := c.snapshot()
		for _, t := range ts {
			out = append(out, &bridged{m: m, c: c, tool: t})
		}
		resources = resources || hasRes
	}
	if resources {
		out = append(out, &readResource{m: m})
	}
	return out
}

func (m *Manager) report(ctx context.Context, session string, emit func(context.Context, event.Payload) error, c *conn, attempted bool, err error) {
	if emit == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if errors.Is(err, ErrUntrusted) {
		key := session + "\x00" + c.srv.Name
		m.mu.Lock()
		seen := m.told[key]
		m.told[key] = true
		m.mu.Unlock()
		if !seen {
			_ = emit(ctx, event.Warning{Code: event.WarningMCPUntrusted, Message: err.Error()})
		}
		return
	}
	if !attempted {
		return
	}
	m.opts.Log.Warn("mcp server failed", "server", c.srv.Name, "error", err)
	c.mu.Lock()
	retry := c.retryAt.Sub(m.clock())
	c.mu.Unlock()
	_ = emit(ctx, event.MCPServerFailed{Server: c.srv.Name, Transport: c.srv.Type, Error: err.Error(),
		RetryInMs: max(retry, 0).Milliseconds()})
}

// Connect connects one server now (olly mcp test, olly doctor) and returns
// its tool count.
func (m *Manager) Connect(ctx context.Context, name string) (toolCount int, err error) {
	c := m.conns[name]
	if c == nil {
		return 0, errors.New("no MCP server named " + name)
	}
	if _, _, err := c.get(ctx); err != nil {
		return 0, err
	}
	ts, _, _ := c.snapshot()
	return len(ts), nil
}

// ToolNames lists a connected server's tools (after Connect).
func (m *Manager) ToolNames(name string) []string {
	c := m.conns[name]
	if c == nil {
		return nil
	}
	ts, _, _ := c.snapshot()
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// Close disconnects every server (stopping stdio servers) and waits for
// the connection watchers.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	for _, n := range m.order {
		m.conns[n].close()
	}
	m.wg.Wait()
	return nil
}

// clock is the time, from a clock tests may replace (setClock).
func (m *Manager) clock() time.Time {
	m.mu.Lock()
	now := m.now
	m.mu.Unlock()
	return now()
}

func (m *Manager) setClock(now func() time.Time) {
	m.mu.Lock()
	m.now = now
	m.mu.Unlock()
}
