package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/olly-agent/olly/internal/config"
)

// ErrUntrusted is returned for a project server nobody trusted (or whose
// entry changed since): it is not started.
var ErrUntrusted = errors.New("not trusted in this workspace")

// conn is one server's connection, made on first use and remade after a
// failure, no sooner than the backoff allows.
type conn struct {
	m   *Manager
	srv Server

	mu       sync.Mutex
	session  *sdk.ClientSession
	tools    []*sdk.Tool
	prompts  []*sdk.Prompt
	hasRes   bool
	failures int
	retryAt  time.Time
	lastErr  error
}

// backoff is the wait after n consecutive failures: 1 s doubling, at most
// 5 minutes.
func backoff(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := time.Second << min(n-1, 9)
	return min(d, 5*time.Minute)
}

// get returns the live session, connecting when there is none and the
// backoff allows. attempted reports whether this call tried to connect
// (and so whether a failure is news).
func (c *conn) get(ctx context.Context) (s *sdk.ClientSession, attempted bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, false, nil
	}
	if c.srv.NeedsTrust() && !c.m.trusted(c.srv) {
		return nil, false, fmt.Errorf("project MCP server %s (%s) is %w: run `olly mcp trust %s` to let it start", c.srv.Name, c.srv.File, ErrUntrusted, c.srv.Name)
	}
	if now := c.m.clock(); now.Before(c.retryAt) {
		return nil, false, fmt.Errorf("%w (retrying in %s)", c.lastErr, c.retryAt.Sub(now).Round(time.Second))
	}
	cctx, cancel := context.WithTimeout(ctx, c.m.opts.ConnectTimeout)
	defer cancel()
	s, err = c.connect(cctx)
	if err != nil {
		c.failures++
		c.retryAt = c.m.clock().Add(backoff(c.failures))
		c.lastErr = fmt.Errorf("MCP server %s: %w", c.srv.Name, err)
		return nil, true, c.lastErr
	}
	c.failures, c.lastErr, c.session = 0, nil, s
	c.m.wg.Add(1)
	go c.watch(s)
	return s, true, nil
}

// connect starts or reaches the server, initialises the session and reads
// its tools and prompts.
func (c *conn) connect(ctx context.Context) (*sdk.ClientSession, error) {
	t, err := c.transport()
	if err != nil {
		return nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "olly", Version: c.m.opts.Version}, nil)
	s, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w%s", err, c.stderrTail())
	}
	caps := s.InitializeResult().Capabilities
	var tools []*sdk.Tool
	if caps == nil || caps.Tools != nil {
		for tool, err := range s.Tools(ctx, nil) {
			if err != nil {
				_ = s.Close()
				return nil, fmt.Errorf("list tools: %w", err)
			}
			tools = append(tools, tool)
		}
	}
	var prompts []*sdk.Prompt
	if caps != nil && caps.Prompts != nil {
		for p, err := range s.Prompts(ctx, nil) {
			if err != nil {
				break // prompts are an extra: a server that fails to list them still serves tools
			}
			prompts = append(prompts, p)
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	c.tools, c.prompts, c.hasRes = tools, prompts, caps != nil && caps.Resources != nil
	return s, nil
}

// transport builds the server's transport. A stdio server's program runs
// in the sandbox unless mcp.unsandboxed names it.
func (c *conn) transport() (sdk.Transport, error) {
	hc := &http.Client{Transport: headerTransport{headers: c.srv.Headers}}
	switch c.srv.Type {
	case config.MCPHTTP:
		return &sdk.StreamableClientTransport{Endpoint: c.srv.URL, HTTPClient: hc, MaxRetries: -1}, nil
	case config.MCPSSE:
		return &sdk.SSEClientTransport{Endpoint: c.srv.URL, HTTPClient: hc}, nil
	}
	cmd := exec.Command(c.srv.Command, c.srv.Args...)
	// mcp.unsandboxed is for the person's own servers: a project server
	// runs code the project (and the model) can change, so it stays
	// confined whatever the setting names.
	if c.m.opts.Wrap != nil && (c.srv.NeedsTrust() || !c.m.unsandboxed(c.srv.Name)) {
		if err := c.m.opts.Wrap(c.srv.Name, cmd); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	cmd.Dir = c.m.opts.Workspace
	cmd.Env = serverEnv(c.m.opts.Environ, c.srv.Env)
	cmd.Stderr = tailWriter{c.m.stderrFor(c.srv.Name)}
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

// watch notices the end of a session (the process exited, the connection
// dropped) and clears it, so the next use reconnects.
func (c *conn) watch(s *sdk.ClientSession) {
	defer c.m.wg.Done()
	_ = s.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == s {
		c.session = nil
		c.failures++
		c.retryAt = c.m.clock().Add(backoff(c.failures))
		c.lastErr = fmt.Errorf("MCP server %s stopped%s", c.srv.Name, c.stderrTail())
	}
}

// drop closes a session whose connection broke during a call. Like an end
// watch notices (whichever sees it first), it counts as a failure: the next
// use reconnects once the backoff allows, so a server that crashes on every
// call is not restarted in a tight loop.
func (c *conn) drop(s *sdk.ClientSession) {
	c.mu.Lock()
	if c.session == s {
		c.session = nil
		c.failures++
		c.retryAt = c.m.clock().Add(backoff(c.failures))
		c.lastErr = fmt.Errorf("MCP server %s stopped during a call%s", c.srv.Name, c.stderrTail())
	}
	c.mu.Unlock()
	_ = s.Close()
}

func (c *conn) close() {
	c.mu.Lock()
	s := c.session
	c.session = nil
	c.mu.Unlock()
	if s != nil {
		_ = s.Close()
	}
}

// live reports whether the server is connected now.
func (c *conn) live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session != nil
}

// snapshot returns what the server offers, as of its last connection.
func (c *conn) snapshot() (tools []*sdk.Tool, prompts []*sdk.Prompt, hasRes bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools, c.prompts, c.hasRes
}

func (c *conn) stderrTail() string {
	if c.srv.Type != config.MCPStdio {
		return ""
	}
	tail := strings.TrimSpace(c.m.stderrFor(c.srv.Name).tail(400))
	if tail == "" {
		return ""
	}
	return "; its stderr ends: " + tail
}

// serverEnv is the environment of a stdio server: olly's own (without its
// OLLY_ variables) plus the server's configured variables.
func serverEnv(base []string, extra map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "OLLY_") || extra[name] != "" {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

// headerTransport adds a server's configured headers to every request.
type headerTransport struct{ headers map[string]string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// tailBuffer keeps the last bytes a server wrote to stderr, for errors.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

type tailWriter struct{ t *tailBuffer }

func (w tailWriter) Write(p []byte) (int, error) {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	w.t.b = append(w.t.b, p...)
	if over := len(w.t.b) - w.t.max; over > 0 {
		w.t.b = append(w.t.b[:0], w.t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
