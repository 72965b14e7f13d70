package agent

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

// orchestratorTools is agent.orchestratorTools' default.
func orchestratorTools() []string {
	return []string{"write_file", "run_terminal_command", tools.SubagentTool}
}

// modeOpt configures a harness for modes and sub-agents.
type modeOpt struct {
	text  bool   // the main model has no native tool calling
	cfg   Config // Model defaults to testModel
	caps  []string
	extra map[string][]string // more models and their capabilities
	// shell gives run_terminal_command (the real tool) a real session
	// shell in the workspace; otherwise the harness's small shell tool.
	shell bool
	// lsp registers the eight code-intelligence tools (without servers).
	lsp bool
	// skill registers the skill tool.
	skill bool
}

// newModeHarness is newHarness with the real read and search tools,
// run_subagent, optional real terminal, and models of the test's choice.
func newModeHarness(t *testing.T, o modeOpt) *harness {
	t.Helper()
	h := &harness{t: t, native: !o.text, dir: t.TempDir()}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h.store = st
	h.srv = llmtest.New(t)
	caps := append([]string{"completion"}, o.caps...)
	if !o.text {
		caps = append(caps, "tools")
	}
	h.srv.AddModel(testModel, llmtest.Caps(caps...), llmtest.ContextLength(40960))
	for name, c := range o.extra {
		h.srv.AddModel(name, llmtest.Caps(c...), llmtest.ContextLength(32768))
	}
	prov, err := ollama.New(h.srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	list := []tools.Tool{tools.ReadFile{}, tools.WriteFile{}, tools.ListFiles{}, tools.FindFiles{}, tools.Search{}, tools.Subagent{}}
	var toolEnv func(context.Context, *session.Turn) (tools.Env, error)
	if o.shell {
		mgr, err := shell.NewManager(shell.ManagerOptions{Roots: []string{h.dir}, ArtifactDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = mgr.CloseAll() })
		list = append(list, tools.Terminal{})
		toolEnv = func(_ context.Context, turn *session.Turn) (tools.Env, error) {
			return tools.Env{Shell: mgr.Session(turn.SessionID)}, nil
		}
	} else {
		list = append(list, shellTool{})
	}
	if o.skill {
		list = append(list, tools.Skill{})
	}
	if o.lsp {
		list = append(list, tools.LSP(nil, nil)...)
	}
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := o.cfg
	if cfg.Model == "" {
		cfg.Model = testModel
	}
	return h.start(ctx, st, Deps{Provider: prov, Tools: reg, Config: cfg, Clock: &noTicks{*newManualClock()}, ToolEnv: toolEnv})
}

// promptMode runs a turn in mode and collects its live events.
func (h *harness) promptMode(mode event.Mode, text string) *session.TurnResult {
	h.t.Helper()
	res, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: text, Mode: mode})
	if err != nil {
		h.t.Fatalf("prompt: %v", err)
	}
	h.drain(res.Turn)
	return res
}

// gitRepo makes the workspace a git repository with one commit.
func (h *harness) gitRepo(message string) {
	h.t.Helper()
	h.write("main.go", "package main\n")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=t@example.com", "-c", "user.name=T", "add", "."},
		{"-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-m", message},
	} {
		cmd := exec.Command("git", append([]string{"-C", h.dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			h.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// isSubagentRequest tells a sub-agent's request by its system prompt.
func isSubagentRequest(r *llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You are a sub-agent of olly")
}

// isClassification tells the dispatcher's request.
func isClassification(r *llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You classify a request")
}

// answered counts the assistant messages already in a request: how far
// along its conversation the asker is.
func answered(r *llmtest.Request) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

// firstUser is a request's first user message (the task).
func firstUser(r *llmtest.Request) string {
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			return m.Content
		}
	}
	return ""
}

// toolNames lists a request's tools.
func toolNames(r *llmtest.Request) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// roles answers requests by who asks: the main agent's replies in order,
// and each sub-agent's replies in order of its own conversation, chosen by
// a function of its task.
type roles struct {
	mu   sync.Mutex
	main []llmtest.Response
	sub  func(task string, step int) llmtest.Response
	// subs are the sub-agent requests received.
	subs []*llmtest.Request
}

func (ro *roles) handle(r *llmtest.Request) llmtest.Response {
	if isSubagentRequest(r) {
		ro.mu.Lock()
		ro.subs = append(ro.subs, r)
		ro.mu.Unlock()
		return ro.sub(firstUser(r), answered(r))
	}
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if len(ro.main) == 0 {
		return llmtest.Status(500, "no scripted main reply")
	}
	next := ro.main[0]
	ro.main = ro.main[1:]
	return next
}

func (ro *roles) subRequests() []*llmtest.Request {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return append([]*llmtest.Request(nil), ro.subs...)
}

// mainChats returns the main agent's chat requests (no sub-agents, no
// classification).
func (h *harness) mainChats() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range h.chats() {
		if !isSubagentRequest(r) && !isClassification(r) {
			out = append(out, r)
		}
	}
	return out
}

// turnStarted returns the live turn_started of turn.
func (h *harness) turnStarted(turn int) event.TurnStarted {
	h.t.Helper()
	for _, ev := range h.live {
		if ts, ok := ev.Data.(event.TurnStarted); ok && ev.Turn == turn {
			return ts
		}
	}
	h.t.Fatalf("no turn_started for turn %d", turn)
	return event.TurnStarted{}
}

// toolResults returns the live tool results, in order.
func (h *harness) toolResults() []event.ToolResult { return payloads[event.ToolResult](h.live) }
