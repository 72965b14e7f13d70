package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/timeline"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// detachedRun prepares a run of mode outside the service, for checking
// what a mode decides.
func detachedRun(t *testing.T, a *Agent, mode event.Mode, text string) *run {
	t.Helper()
	return detachedRunIn(t, a, t.TempDir(), mode, text)
}

// detachedRunIn is detachedRun with the workspace dir.
func detachedRunIn(t *testing.T, a *Agent, dir string, mode event.Mode, text string) *run {
	t.Helper()
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	emit := func(_ context.Context, p event.Payload) (event.Event, error) { return event.Event{Data: p}, nil }
	turn := session.NewTurn("s1", 1, ws, session.PromptInput{Text: text, Mode: mode}, nil, emit)
	r, err := a.newRun(context.Background(), turn)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// allTools is a registry with every tool olly has.
func allTools(t testing.TB) *tools.Registry {
	t.Helper()
	reg, err := tools.NewRegistry(append(append(tools.Core(), tools.LSP(nil, nil)...), tools.Subagent{})...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestModeTable(t *testing.T) {
	readOnly := readOnlyTools()
	cases := []struct {
		mode       event.Mode
		maxIter    int
		tools      []string
		needsWrite bool
	}{
		{event.ModeAgent, 25, orchestratorTools(), true},
		{event.ModeExplore, 10, readOnly, false},
		{event.ModePlan, 10, readOnly, false},
		{event.ModeReview, 15, append(slices.Clone(readOnly), "run_terminal_command"), false},
		{event.ModeSecurityReview, 15, append(slices.Clone(readOnly), "run_terminal_command"), false},
		{event.ModeDeepExplore, 20, append(slices.Clone(readOnly), tools.SubagentTool), false},
		{event.ModeDeepExploreWrite, 20, append(slices.Clone(readOnly), tools.SubagentTool, "write_file"), true},
		{event.ModeChat, 10, readOnly, false},
	}
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t), Config: Config{Model: "m", Tools: orchestratorTools()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(string(tc.mode), func(t *testing.T) {
			// "add a test" needs writes by the keyword heuristic: only agent
			// mode may keep that.
			r := detachedRun(t, a, tc.mode, "add a test for Parse")
			if r.mode.name != tc.mode || r.cfg.MaxIterations != tc.maxIter || r.gates.needsWrite != tc.needsWrite {
				t.Errorf("mode %s: cap %d, needsWrite %v; want %d, %v", r.mode.name, r.cfg.MaxIterations, r.gates.needsWrite, tc.maxIter, tc.needsWrite)
			}
			got := r.offeredNames()
			slices.Sort(got)
			want := slices.Clone(tc.tools)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("tools %v, want %v", got, want)
			}
			if r.mode.readOnly && r.env.Snapshots != nil {
				t.Errorf("a read-only mode kept a checkpoint")
			}
		})
	}
	// agent.maxIterations caps the mode's own cap.
	low, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t), Config: Config{Model: "m", MaxIterations: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if r := detachedRun(t, low, event.ModeDeepExplore, "x"); r.cfg.MaxIterations != 4 {
		t.Errorf("deep-explore cap with agent.maxIterations 4: %d", r.cfg.MaxIterations)
	}
	if _, err := a.newRun(context.Background(), session.NewTurn("s", 1, nil, session.PromptInput{Text: "x", Mode: "yolo"}, nil, nil)); err == nil ||
		!strings.Contains(err.Error(), "deep-explore") {
		t.Errorf("unknown mode: %v, want an error listing the modes", err)
	}
}

// The bar: review runs read-only git commands and refuses anything else
// at run time (the seed's review terminal was broken).
func TestReviewRunsGitRefusesOthers(t *testing.T) {
	h := newModeHarness(t, modeOpt{shell: true})
	h.gitRepo("first commit: add main")
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("Looking at history."),
			llmtest.ToolCall("run_terminal_command", `{"command": "git log --oneline | head -5"}`),
			llmtest.ToolCall("run_terminal_command", `{"command": "touch x"}`),
			llmtest.ToolCall("run_terminal_command", `{"command": "git commit --allow-empty -m sneaky"}`)),
		llmtest.Reply(llmtest.Text("No findings at confidence 8 or above. [TASK_COMPLETE]")),
	)
	res := h.promptMode(event.ModeReview, "review the last commit")
	if res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	r := h.toolResults()
	if len(r) != 3 {
		t.Fatalf("results = %+v", r)
	}
	if r[0].IsError || !strings.Contains(r[0].Content, "first commit: add main") {
		t.Errorf("git log: %+v", r[0])
	}
	for _, x := range r[1:] {
		if !x.IsError || !strings.Contains(x.Content, "Not run") || !strings.Contains(x.Content, "read-only git") {
			t.Errorf("refused command result: %+v", x)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "x")); !os.IsNotExist(err) {
		t.Errorf("touch x ran: %v", err)
	}
	if out, _ := gitOutput(h.dir, "log", "--oneline"); strings.Contains(out, "sneaky") {
		t.Errorf("git commit ran: %s", out)
	}
	for _, ap := range payloads[event.ApprovalRequested](h.live) {
		t.Errorf("review asked for approval: %+v", ap)
	}
	mains := h.mainChats()
	if names := toolNames(mains[0]); slices.Contains(names, "write_file") || !slices.Contains(names, "run_terminal_command") {
		t.Errorf("review tools = %v", names)
	}
	mustContain(t, "review continuation", mains[1].LastMessage().Content, `"maxIterations":15`)
	if strings.Contains(mains[1].LastMessage().Content, reminderPrefix) {
		t.Error("a read-only mode was reminded of its task (seed pitfall #38)")
	}
	mustContain(t, "review prompt", mains[0].Messages[0].Content, "CONFIDENCE SCALE", "Low confidence", "read-only git commands only")
	if ts := h.turnStarted(1); ts.Mode != event.ModeReview {
		t.Errorf("turn_started %+v", ts)
	}
}

func gitOutput(dir string, args ...string) (string, error) {
	return git(context.Background(), dir, args...)
}

// A read-only mode refuses a write the model calls anyway, at run time.
func TestReadOnlyModeRefusesWrites(t *testing.T) {
	h := newModeHarness(t, modeOpt{})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path": "new.txt", "content": "x"}`)),
		llmtest.Reply(llmtest.Text("I cannot write here. [TASK_COMPLETE]")),
	)
	h.promptMode(event.ModeExplore, "what is in this project?")
	if _, ok := h.read("new.txt"); ok {
		t.Fatal("explore mode wrote a file")
	}
	r := h.toolResults()
	if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, `"write_file" is not available in explore mode, which is read-only`) {
		t.Errorf("results = %+v", r)
	}
	var refused bool
	for _, a := range payloads[event.ToolAction](h.live) {
		refused = refused || (a.Tool == "write_file" && a.Status == event.ActionError && a.Detail == "not available")
	}
	if !refused {
		t.Error("the refusal was not shown")
	}
	if fc := payloads[event.FilesChanged](h.live); len(fc) != 0 {
		t.Errorf("files changed in a read-only mode: %+v", fc)
	}
}

// The bar: the orchestrator is refused a tool outside
// agent.orchestratorTools at run time, even one that is registered.
func TestOrchestratorRefusesReadAtRunTime(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools()}})
	h.write("secret.txt", "the content\n")
	h.srv.Enqueue(
		llmtest.Reply(llmtest.ToolCall("read_file", `{"path": "secret.txt"}`)),
		llmtest.Reply(llmtest.Text("Understood. [TASK_COMPLETE]")),
	)
	h.prompt("what does secret.txt say?")
	r := h.toolResults()
	if len(r) != 1 || !r[0].IsError || strings.Contains(r[0].Content, "the content") ||
		!strings.Contains(r[0].Content, "Call run_subagent") {
		t.Fatalf("results = %+v", r)
	}
	sys := h.mainChats()[0].Messages[0].Content
	mustContain(t, "orchestrator prompt", sys, "DELEGATION", "SCOUT", "EXPLORE", "WRITE", "VERIFY", "findings are returned only to you")
	if strings.Contains(sys, "<project_context>") {
		t.Error("the orchestrator prompt has project context")
	}
}

// Plan mode ends with a plan; implementing it starts an agent-mode turn
// with the plan as the task, without classifying it.
func TestPlanThenImplement(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Classify: true}})
	plan := "## Plan\nComplexity: small.\n1. Create a.txt with \"done\"."
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text(plan+" [TASK_COMPLETE]")),
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path": "a.txt", "content": "done\n"}`)),
		llmtest.Reply(llmtest.Text("Implemented. [TASK_COMPLETE]")),
	)
	res := h.promptMode(event.ModePlan, "plan creating a.txt")
	finals := payloads[event.FinalMessage](h.live)
	if len(finals) != 1 || !finals[0].Plan || finals[0].Text != plan {
		t.Fatalf("final messages = %+v", finals)
	}
	if len(h.chats()) != 1 {
		t.Errorf("%d requests for the plan: a mode the person chose is not classified", len(h.chats()))
	}
	// Frontends show the "Implement this plan" action from the timeline.
	items := timeline.Build(h.stored()).Items
	if blocks := items[len(items)-1].Blocks; len(blocks) == 0 || !blocks[len(blocks)-1].Plan || blocks[len(blocks)-1].Kind != timeline.BlockFinal {
		t.Errorf("the plan's final block is not marked: %+v", blocks)
	}
	mustContain(t, "plan prompt", h.chats()[0].Messages[0].Content, "PLAN QUALITY RULES", "estimated complexity", "risks")

	impl, err := h.svc.ImplementPlan(context.Background(), h.sess.ID, res.Turn)
	if err != nil {
		t.Fatal(err)
	}
	h.drain(impl.Turn)
	if impl.Status != event.FinishDone {
		t.Fatalf("implementation = %+v", impl)
	}
	if got, _ := h.read("a.txt"); got != "done\n" {
		t.Errorf("a.txt = %q", got)
	}
	ts := h.turnStarted(impl.Turn)
	if ts.Mode != event.ModeAgent || ts.Dispatch == nil || ts.Dispatch.Confidence != 1 || !ts.Dispatch.NeedsWrite {
		t.Errorf("implementation turn_started = %+v %+v", ts, ts.Dispatch)
	}
	for _, it := range timeline.Build(h.stored()).Items {
		if it.Kind == timeline.KindAssistant && it.Turn == impl.Turn && (it.Dispatch == nil || it.Dispatch.Confidence != 1) {
			t.Errorf("the timeline does not say why the turn was routed: %+v", it.Dispatch)
		}
	}
	for _, r := range h.chats() {
		if isClassification(r) {
			t.Error("the plan's implementation was classified")
		}
	}
	var users []string
	for _, u := range payloads[event.UserMessage](h.live) {
		users = append(users, u.Text)
	}
	if len(users) != 2 || users[1] != "Implement this plan:\n\n"+plan {
		t.Errorf("user messages = %q", users)
	}
	if fm := payloads[event.FinalMessage](h.live); fm[len(fm)-1].Plan {
		t.Error("the implementation's summary is marked as a plan")
	}
}

// In chat mode an answer ends the turn; no nudge for the signal.
func TestChatAnswerEndsTurn(t *testing.T) {
	h := newModeHarness(t, modeOpt{})
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("A goroutine is a lightweight thread.")))
	res := h.promptMode(event.ModeChat, "what is a goroutine?")
	if res.Status != event.FinishDone || res.Iterations != 1 || res.FinalText != "A goroutine is a lightweight thread." {
		t.Fatalf("result = %+v", res)
	}
	mustContain(t, "chat prompt", h.chats()[0].Messages[0].Content, "TOOL USAGE", "USER-PROVIDED CONTEXT")
}

// A mode's iteration cap is enforced by the loop.
func TestModeCapEnforced(t *testing.T) {
	h := newModeHarness(t, modeOpt{})
	n := 0
	h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
		n++
		return llmtest.Reply(llmtest.ToolCall("list_files", `{"path": "d`+strings.Repeat("x", n)+`"}`))
	})
	res := h.promptMode(event.ModeExplore, "look at everything")
	if res.Status != event.FinishMaxIterations || res.Iterations != 10 || len(h.chats()) != 10 {
		t.Errorf("result %+v after %d requests; want explore's cap of 10", res, len(h.chats()))
	}
	mustContain(t, "final", res.FinalText, "Stopped after 10 iterations")
}

func TestGitOnly(t *testing.T) {
	cases := []struct {
		cmd string
		ok  bool
	}{
		{"git log --oneline -5", true},
		{"git log --oneline | head -5", true},
		{"git -C sub diff HEAD~1", true},
		{"git show HEAD:main.go | grep func | wc -l", true},
		{"git status && git diff", true},
		{"touch x", false},
		{"git commit -m x", false},
		{"git push", false},
		{"git", false},
		{"git log; rm -rf build", false},
		{"head -5 main.go", false},
		{"$(echo git) log", false},
		{"\"git\" log", false},
		{"git log $(rm x)", false},
		{"git log > out.txt", true},          // syntactically git; safety.ReadOnly refuses the redirection
		{"if true; then git log; fi", false}, // true is not git
		{"", false},
		{"git log (", false},
	}
	for _, tc := range cases {
		if why := gitOnly(tc.cmd); (why == "") != tc.ok {
			t.Errorf("gitOnly(%q) = %q, want ok %v", tc.cmd, why, tc.ok)
		}
	}
}

// gitOnly's verdict is what review relies on: the terminal tool also
// requires safety.ReadOnly, judged where the command would run (its cwd
// argument included), and refuses instead of asking.
func TestReviewCommandNeedsReadOnly(t *testing.T) {
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t), Config: Config{Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := detachedRunIn(t, a, dir, event.ModeReview, "review")
	env := r.env
	if env.Commands == nil {
		t.Fatal("review mode's tool environment has no command policy")
	}
	env.Workspace, env.Shell = r.t.Workspace, refusingShell{t}
	for args, ok := range map[string]bool{
		`{"command": "git log > out.txt"}`:                   false,
		`{"command": "git diff --output=/tmp/x"}`:            false,
		`{"command": "git log --oneline"}`:                   true,
		`{"command": "git branch -D main"}`:                  false,
		`{"command": "git -C /etc log"}`:                     false,
		`{"command": "git branch --list"}`:                   true,
		`{"command": "if true; then git log; fi"}`:           false,
		`{"command": "git log | grep fix | sort -u"}`:        true,
		`{"command": "git show HEAD --stat | tail -3"}`:      true,
		`{"command": "touch x"}`:                             false,
		`{"command": "git -C .. log", "cwd": "sub"}`:         true,  // the workspace root
		`{"command": "git -C ../.. log", "cwd": "sub"}`:      false, // above it
		`{"command": "git -C ../.. log"}`:                    false,
		`{"command": "git log", "cwd": "sub"}`:               true,
		`{"command": "git log | tee out.txt", "cwd": "sub"}`: false,
	} {
		parsed, err := tools.ParseArgs([]byte(args))
		if err != nil {
			t.Fatal(err)
		}
		p, err := tools.Terminal{}.Prepare(context.Background(), &env, parsed)
		if err != nil {
			t.Fatal(err)
		}
		refused := p.Done != nil && p.Done.IsError && strings.HasPrefix(p.Done.Content, "Not run:")
		if refused == ok || (ok && p.Approval != nil) {
			t.Errorf("%s: done %+v, approval %+v; want allowed without asking: %v", args, p.Done, p.Approval, ok)
		}
	}
}

// refusingShell is a shell no command may reach.
type refusingShell struct{ t *testing.T }

func (s refusingShell) Run(context.Context, string, shell.RunOptions) (*shell.Result, error) {
	s.t.Error("a command ran")
	return nil, errors.New("no shell")
}

func FuzzGitOnly(f *testing.F) {
	for _, s := range []string{"git log", "git log | head", "touch x", "git -C d show", "git $(x)", "a && git diff", "git log 'a b'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if gitOnly(cmd) == "" && !strings.Contains(cmd, "git") {
			t.Fatalf("%q allowed without git", cmd)
		}
	})
}
