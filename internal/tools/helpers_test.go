package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/workspace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// files writes a tree under dir: "a/b.txt" gets content (or its own path
// when content is empty); a name ending in / is a directory.
func files(t testing.TB, dir string, spec map[string]string) {
	t.Helper()
	for name, content := range spec {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if content == "" {
			content = name + "\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newWorkspace makes a workspace in a temporary directory holding spec.
func newWorkspace(t testing.TB, spec map[string]string) *workspace.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files(t, dir, spec)
	ws, err := workspace.New([]string{dir}, workspace.WithHome(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func root(ws *workspace.Workspace) string { return ws.Primary().Path }

// recorder keeps every event a call emits and signals approval requests.
type recorder struct {
	mu        sync.Mutex
	events    []event.Payload
	requested chan event.ApprovalRequested
}

func newRecorder() *recorder {
	return &recorder{requested: make(chan event.ApprovalRequested, 16)}
}

func (r *recorder) emit(_ context.Context, p event.Payload) error {
	r.mu.Lock()
	r.events = append(r.events, p)
	r.mu.Unlock()
	if req, ok := p.(event.ApprovalRequested); ok {
		r.requested <- req
	}
	return nil
}

func (r *recorder) all() []event.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Payload(nil), r.events...)
}

// actions returns the tool_action events, in order.
func (r *recorder) actions() []event.ToolAction {
	var out []event.ToolAction
	for _, p := range r.all() {
		if a, ok := p.(event.ToolAction); ok {
			out = append(out, a)
		}
	}
	return out
}

// sequence summarises the durable events as "action:pending",
// "approval_requested", … for order checks.
func (r *recorder) sequence(actionID string) []string {
	var out []string
	mine := map[string]bool{}
	for _, p := range r.all() {
		switch x := p.(type) {
		case event.ToolAction:
			if x.ActionID == actionID {
				out = append(out, "action:"+x.Status)
			}
		case event.ApprovalRequested:
			if x.ActionID == actionID {
				mine[x.ApprovalID] = true
				out = append(out, "approval_requested")
			}
		case event.ApprovalResolved:
			if mine[x.ApprovalID] {
				out = append(out, "approval_resolved:"+x.Decision)
			}
		}
	}
	return out
}

// harness runs calls through a registry of the core tools with an
// approval manager, as the agent will.
type harness struct {
	t        testing.TB
	ws       *workspace.Workspace
	reg      *Registry
	rec      *recorder
	approver *approval.Manager
	env      *Env
	n        int
}

func newHarness(t testing.TB, spec map[string]string) *harness {
	t.Helper()
	ws := newWorkspace(t, spec)
	reg, err := NewRegistry(Core()...)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	m := approval.NewManager(approval.Options{})
	h := &harness{t: t, ws: ws, reg: reg, rec: rec, approver: m}
	h.env = &Env{Session: "s1", Turn: 1, Workspace: ws, Emit: rec.emit, Approver: m}
	return h
}

// call runs one tool call and returns its result.
func (h *harness) call(name string, args map[string]any) *Result {
	h.t.Helper()
	return h.callCtx(context.Background(), name, args)
}

func (h *harness) callCtx(ctx context.Context, name string, args map[string]any) *Result {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	h.n++
	out := h.reg.Execute(ctx, h.env, Call{ID: fmt.Sprint("c", h.n), Name: name, Args: raw, GroupID: "g1", ActionID: fmt.Sprint("a", h.n)})
	return out.Result
}

// answering runs the next call in the background and answers its approval
// request with a; it returns the request and the result.
func (h *harness) answering(name string, args map[string]any, a approval.Answer) (event.ApprovalRequested, *Result) {
	h.t.Helper()
	id := fmt.Sprint("a", h.n+1)
	done := make(chan *Result, 1)
	go func() { done <- h.call(name, args) }()
	var req event.ApprovalRequested
	for req.ActionID != id { // skip requests of earlier calls
		select {
		case req = <-h.rec.requested:
		case res := <-done:
			h.t.Fatalf("%s finished without asking: %+v", name, res)
		case <-time.After(20 * time.Second):
			h.t.Fatal("no approval requested")
		}
	}
	if err := h.approver.Answer("s1", req.ApprovalID, a); err != nil {
		h.t.Fatal(err)
	}
	select {
	case res := <-done:
		return req, res
	case <-time.After(30 * time.Second):
		h.t.Fatal("call did not finish after the answer")
		return req, nil
	}
}

// lastAction is the final state of the call's own action.
func (h *harness) lastAction() event.ToolAction {
	h.t.Helper()
	id := fmt.Sprint("a", h.n)
	var last event.ToolAction
	for _, a := range h.rec.actions() {
		if a.ActionID == id {
			last = a
		}
	}
	return last
}

func mustContain(t testing.TB, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Fatalf("missing %q in:\n%s", p, s)
		}
	}
}

func mustNotContain(t testing.TB, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(s, p) {
			t.Fatalf("unexpected %q in:\n%s", p, s)
		}
	}
}

// numbered builds a file of n lines "line 1" … "line n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}
