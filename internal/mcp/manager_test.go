package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/mcp/mcptest"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/trust"
)

// events collects what a manager emits.
type events struct {
	mu  sync.Mutex
	got []event.Payload
}

func (e *events) emit(_ context.Context, p event.Payload) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, p)
	return nil
}

func (e *events) failed() []event.MCPServerFailed {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []event.MCPServerFailed
	for _, p := range e.got {
		if f, ok := p.(event.MCPServerFailed); ok {
			out = append(out, f)
		}
	}
	return out
}

func stdio(name, command string, args ...string) Server {
	c := config.MCPServer{Name: name, Command: command, Args: args}
	if err := c.Normalize(); err != nil {
		panic(err)
	}
	return Server{MCPServer: c, Source: SourceUser}
}

// execute runs a call through a registry, as the agent does.
func execute(t *testing.T, ts []tools.Tool, name, args string, approver tools.Approver) *tools.Result {
	t.Helper()
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Session: "s1", Extra: ts, Approver: approver, Emit: func(context.Context, event.Payload) error { return nil }}
	return reg.Execute(context.Background(), env, tools.Call{ID: "c1", Name: name, Args: []byte(args), GroupID: "g", ActionID: "a"}).Result
}

func TestEverythingServerTools(t *testing.T) {
	node, script := mcptest.Everything(t)
	m := New(Options{Workspace: t.TempDir(), Servers: []Server{stdio("everything", node, script, "stdio")},
		Allow: []string{"everything/echo"}, CallTimeout: 30 * time.Second})
	defer m.Close()
	var ev events
	ts := m.Tools(context.Background(), "s1", ev.emit)
	names := map[string]bool{}
	for _, tool := range ts {
		names[tool.Spec().Name] = true
	}
	if !names["mcp__everything__echo"] || !names["mcp__everything__get-sum"] {
		t.Fatalf("tools = %v, failures %v", names, ev.failed())
	}
	if !strings.Contains(string(find(t, ts, "mcp__everything__echo").Spec().Parameters), "message") {
		t.Errorf("echo's schema lost its parameters: %s", find(t, ts, "mcp__everything__echo").Spec().Parameters)
	}
	// echo is allowed: it runs without asking.
	res := execute(t, ts, "mcp__everything__echo", `{"message":"hello olly"}`, nil)
	if res.IsError || !strings.Contains(res.Content, "hello olly") {
		t.Fatalf("echo = %+v", res)
	}
	// get-sum is not allowed: with no approver it is refused, not run.
	res = execute(t, ts, "mcp__everything__get-sum", `{"a":2,"b":3}`, nil)
	if !res.Denied {
		t.Fatalf("get-sum ran without approval: %+v", res)
	}
	res = execute(t, ts, "mcp__everything__get-sum", `{"a":2,"b":3}`, yes{})
	if res.IsError || !strings.Contains(res.Content, "5") {
		t.Fatalf("get-sum approved = %+v", res)
	}
}

func find(t *testing.T, ts []tools.Tool, name string) tools.Tool {
	t.Helper()
	for _, tool := range ts {
		if tool.Spec().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// yes approves everything, checking the request describes the tool.
type yes struct{}

func (yes) Request(_ context.Context, _ approval.Emit, req approval.Request) (approval.Decision, error) {
	if req.Kind != event.ApprovalTool || req.Tool == "" || req.Arguments == "" {
		return approval.Decision{Outcome: event.DecisionDenied, Reason: "bad request"}, nil
	}
	return approval.Decision{Outcome: event.DecisionApproved}, nil
}

func TestServerDyingMidCallIsAToolError(t *testing.T) {
	node, script := mcptest.Flaky(t, t.TempDir())
	m := New(Options{Workspace: t.TempDir(), Servers: []Server{stdio("flaky", node, script)}, Allow: []string{"flaky"}})
	defer m.Close()
	var ev events
	ts := m.Tools(context.Background(), "s1", ev.emit)
	if len(ts) != 1 {
		t.Fatalf("tools %d, failures %v", len(ts), ev.failed())
	}
	reg, _ := tools.NewRegistry()
	env := &tools.Env{Session: "s1", Extra: ts, Emit: ev.emit}
	res := reg.Execute(context.Background(), env, tools.Call{ID: "c", Name: "mcp__flaky__die", Args: []byte(`{}`), GroupID: "g", ActionID: "a"}).Result
	if !res.IsError || !strings.Contains(res.Content, "MCP server flaky stopped during the call of die") {
		t.Fatalf("result = %+v", res)
	}
	if f := ev.failed(); len(f) != 1 || f[0].Server != "flaky" {
		t.Fatalf("mcp_server_failed events = %+v", f)
	}
	// Within the backoff nothing restarts it; after it, the next use
	// starts a new process.
	if _, err := m.Connect(context.Background(), "flaky"); err == nil || !strings.Contains(err.Error(), "retrying in") {
		t.Fatalf("reconnected within the backoff: %v", err)
	}
	m.setClock(func() time.Time { return time.Now().Add(2 * time.Second) })
	if n, err := m.Connect(context.Background(), "flaky"); err != nil || n != 1 {
		t.Fatalf("reconnect: %d %v", n, err)
	}
}

func TestUntrustedProjectServerDoesNotStart(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	srv := stdio("proj", "sh", "-c", "touch '"+marker+"'")
	srv.Source = SourceProject
	st, err := trust.Open(filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Workspace: ws, Servers: []Server{srv}, Trust: st, ConnectTimeout: 2 * time.Second})
	defer m.Close()
	var ev events
	if ts := m.Tools(context.Background(), "s1", ev.emit); len(ts) != 0 {
		t.Fatalf("tools of an untrusted server: %d", len(ts))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted server's program ran")
	}
	var warned bool
	for _, p := range ev.got {
		if w, ok := p.(event.Warning); ok && w.Code == "mcp_untrusted" && strings.Contains(w.Message, "olly mcp trust proj") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no untrusted warning: %+v", ev.got)
	}
	// Trusted with another fingerprint (the entry changed): still not run.
	if err := st.Trust(ws, trust.KindMCP, "proj", "old-fingerprint"); err != nil {
		t.Fatal(err)
	}
	m.Tools(context.Background(), "s1", ev.emit)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a server trusted with another fingerprint ran")
	}
	// Trusted as it is: it starts (and fails, not being an MCP server).
	if err := st.Trust(ws, trust.KindMCP, "proj", srv.Fingerprint()); err != nil {
		t.Fatal(err)
	}
	m.Tools(context.Background(), "s1", ev.emit)
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the trusted server did not start")
	}
	if len(ev.failed()) == 0 {
		t.Error("a server that is not an MCP server gave no mcp_server_failed")
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{0: 0, 1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 20: 5 * time.Minute} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestFailedServerWaitsForBackoff(t *testing.T) {
	m := New(Options{Workspace: t.TempDir(), Servers: []Server{stdio("gone", "/nonexistent/olly-mcp-server")}})
	defer m.Close()
	var ev events
	m.Tools(context.Background(), "s1", ev.emit)
	m.Tools(context.Background(), "s1", ev.emit) // within the backoff: no new attempt
	f := ev.failed()
	if len(f) != 1 || f[0].RetryInMs <= 0 || !strings.Contains(f[0].Error, "gone") {
		t.Fatalf("failures = %+v", f)
	}
}
