package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/llm/openai"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testModel = "coder"

// harness is a real session service over a real store in a temp dir, a
// real workspace, the real write_file and read_file tools plus small real
// search and shell tools, and the fake model server.
type harness struct {
	t      *testing.T
	native bool
	dir    string
	srv    *llmtest.Server
	store  *store.Store
	svc    *session.Service
	agent  *Agent
	runner func(a *Agent) session.Runner // harnessOpt.runner
	sess   *store.Session
	sub    *session.Subscription
	live   []event.Event
}

type harnessOpt struct {
	caps    []string
	cfg     Config
	dialect string // "ollama" (default) or "openai"
	diag    Diagnostics
	ctxLen  int
	clock   Clock // nil: tickers that never tick (deltas only at stream ends)
	// model are more options of the fake's model (NoShift, ContentOverCalls…).
	model []llmtest.ModelOption
	// tools are registered besides the harness's own; toolEnv builds each
	// turn's tool environment (nil: none).
	tools   []tools.Tool
	toolEnv func(h *harness) func(context.Context, *session.Turn) (tools.Env, error)
	// wrap, when set, wraps the provider the agent is given; runner, the
	// agent as the session service's runner.
	wrap   func(llm.Provider) llm.Provider
	runner func(a *Agent) session.Runner
}

func newHarness(t *testing.T, native bool, o harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, native: native, dir: t.TempDir()}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h.store = st
	h.srv = llmtest.New(t)
	caps := o.caps
	if caps == nil {
		caps = []string{"completion"}
	}
	if native {
		caps = append(caps, "tools")
	}
	if o.ctxLen == 0 {
		o.ctxLen = 40960
	}
	h.srv.AddModel(testModel, append([]llmtest.ModelOption{llmtest.Caps(caps...), llmtest.ContextLength(o.ctxLen)}, o.model...)...)
	var prov llm.Provider
	if o.dialect == "openai" {
		prov, err = openai.New(h.srv.URL(), openai.WithRetry(llm.RetryPolicy{}))
	} else {
		prov, err = ollama.New(h.srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	}
	if err != nil {
		t.Fatal(err)
	}
	if o.wrap != nil {
		prov = o.wrap(prov)
	}
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.ReadFile{}, tools.WriteFile{}, searchTool{}, shellTool{}}, o.tools...)...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := o.cfg
	if cfg.Model == "" {
		cfg.Model = testModel
	}
	if o.clock == nil {
		o.clock = &noTicks{*newManualClock()}
	}
	d := Deps{Provider: prov, Tools: reg, Config: cfg, Diagnostics: o.diag, Clock: o.clock}
	if o.toolEnv != nil {
		d.ToolEnv = o.toolEnv(h)
	}
	h.runner = o.runner
	return h.start(ctx, st, d)
}

// start builds the agent from d, the session service on st, and a session
// in h.dir whose live events h collects.
func (h *harness) start(ctx context.Context, st *store.Store, d Deps) *harness {
	t := h.t
	var err error
	if h.agent, err = New(d); err != nil {
		t.Fatal(err)
	}
	var runner session.Runner = h.agent
	if h.runner != nil {
		runner = h.runner(h.agent)
	}
	if h.svc, err = session.New(session.Deps{Store: st, Runner: runner}); err != nil {
		t.Fatal(err)
	}
	if h.sess, err = h.svc.Create(ctx, session.CreateOptions{Workspace: h.dir}); err != nil {
		t.Fatal(err)
	}
	if h.sub, err = h.svc.Subscribe(ctx, h.sess.ID, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.sub.Close)
	return h
}

// write creates a workspace file.
func (h *harness) write(name, content string) {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// read returns a workspace file's content ("" and false when missing).
func (h *harness) read(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(h.dir, name))
	return string(b), err == nil
}

// call is a tool call in the harness's tool-calling path: native, or the
// text format the system prompt teaches.
func (h *harness) call(name, args string) llmtest.Part {
	if h.native {
		return llmtest.ToolCall(name, args)
	}
	return llmtest.Text(`<tool_call>{"name": "` + name + `", "arguments": ` + args + `}</tool_call>`)
}

// prompt runs a turn and collects its live events.
func (h *harness) prompt(text string) *session.TurnResult {
	h.t.Helper()
	res, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: text})
	if err != nil {
		h.t.Fatalf("prompt: %v", err)
	}
	h.drain(res.Turn)
	return res
}

// drain reads live events up to the turn's turn_finished.
func (h *harness) drain(turn int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		ev, err := h.sub.Next(ctx)
		if err != nil {
			h.t.Fatalf("waiting for turn %d to finish: %v", turn, err)
		}
		h.live = append(h.live, ev)
		if _, ok := ev.Data.(event.TurnFinished); ok && ev.Turn == turn {
			return
		}
	}
}

// stored returns the durable events of the session's branch.
func (h *harness) stored() []event.Event {
	h.t.Helper()
	evs, err := h.svc.History(context.Background(), h.sess.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

// chats returns the chat requests the fake received.
func (h *harness) chats() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range h.srv.Requests() {
		if r.Path == "/api/chat" || r.Path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

// payloads returns the live events' payloads of type T, in order.
func payloads[T event.Payload](evs []event.Event) []T {
	var out []T
	for _, ev := range evs {
		if p, ok := ev.Data.(T); ok {
			out = append(out, p)
		}
	}
	return out
}

// searchTool is a small real search_workspace: it greps the workspace.
type searchTool struct{}

func (searchTool) Spec() llm.Tool {
	return llm.Tool{Name: "search_workspace", Description: "Search the workspace for text.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}
}

func (searchTool) Run(ctx context.Context, env *tools.Env, args tools.Args) (*tools.Result, error) {
	q, _ := args.String("query")
	root := env.Workspace.Primary().Path
	var b strings.Builder
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, p)
		sc, n, head := bufio.NewScanner(f), 0, false
		for sc.Scan() {
			n++
			if strings.Contains(sc.Text(), q) {
				if !head {
					fmt.Fprintf(&b, "── %s ──\n", filepath.ToSlash(rel))
					head = true
					files++
				}
				fmt.Fprintf(&b, "→ %d: %s\n", n, sc.Text())
			}
		}
		return sc.Err()
	})
	if err != nil {
		return nil, err
	}
	if files == 0 {
		return &tools.Result{IsError: true, Content: "No match for " + q, Display: event.ToolAction{Text: "Searched " + q}}, nil
	}
	return &tools.Result{Content: b.String(), Display: event.ToolAction{Text: "Searched " + q, Detail: fmt.Sprintf("%d files", files)}}, nil
}

// shellTool is a small real run_terminal_command: bash in the workspace.
type shellTool struct{}

func (shellTool) Spec() llm.Tool {
	return llm.Tool{Name: "run_terminal_command", Description: "Run a shell command.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}
}

func (shellTool) Run(ctx context.Context, env *tools.Env, args tools.Args) (*tools.Result, error) {
	cmd, _ := args.String("command")
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = env.Workspace.Primary().Path
	out, err := c.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return &tools.Result{Content: fmt.Sprintf("Exit code %d\n%s", code, out), Display: event.ToolAction{Text: "Ran " + cmd, Output: string(out)}}, nil
}
