package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

// subagentVisible are the event types a sub-agent may put on the parent's
// timeline.
func subagentVisible() map[event.Type]bool {
	return map[event.Type]bool{
		event.TypeProgressGroupStart: true, event.TypeToolAction: true, event.TypeToolOutput: true,
		event.TypeProgressGroupFinish: true, event.TypeError: true, event.TypeWarning: true,
		event.TypeSubagentThinking: true, event.TypeApprovalRequested: true, event.TypeApprovalResolved: true,
	}
}

// window returns the events between the wrapper group's start and finish.
func window(t *testing.T, evs []event.Event, group string) []event.Event {
	t.Helper()
	start, end := -1, -1
	for i, ev := range evs {
		switch p := ev.Data.(type) {
		case event.ProgressGroupStart:
			if p.GroupID == group {
				start = i
			}
		case event.ProgressGroupFinish:
			if p.GroupID == group && start >= 0 {
				end = i
			}
		}
	}
	if start < 0 || end < 0 {
		t.Fatalf("wrapper group %s not opened and closed", group)
	}
	return evs[start+1 : end]
}

func subCall(task, title, extra string) llmtest.Part {
	return llmtest.ToolCall(tools.SubagentTool, fmt.Sprintf(`{"task": %q, "title": %q%s}`, task, title, extra))
}

// Several run_subagent calls in one response run at once, bounded, with
// their results in call order.
func TestSubagentsRunConcurrentlyInOrder(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools(), SubagentConcurrency: 2}})
	var inflight, peak atomic.Int32
	ro := &roles{
		main: []llmtest.Response{
			llmtest.Reply(subCall("task A", "A", ""), subCall("task B", "B", ""), subCall("task C", "C", "")),
			llmtest.Reply(llmtest.Text("All three answered. [TASK_COMPLETE]")),
		},
		sub: func(task string, step int) llmtest.Response {
			n := inflight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			// B is slowest: if results followed completion, its result
			// would come last.
			d := 60 * time.Millisecond
			if task == "task B" {
				d = 250 * time.Millisecond
			}
			time.Sleep(d)
			inflight.Add(-1)
			return llmtest.Reply(llmtest.Text("answer to " + task + " [TASK_COMPLETE]"))
		},
	}
	h.srv.Handle(ro.handle)
	res := h.prompt("answer three questions")
	if res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("at most %d sub-agents ran at once, want 2 (SubagentConcurrency)", p)
	}
	var got []string
	for _, r := range h.toolResults() {
		got = append(got, r.Content)
	}
	if diff := cmp.Diff([]string{"answer to task A", "answer to task B", "answer to task C"}, got); diff != "" {
		t.Errorf("results not in call order (-want +got):\n%s", diff)
	}
	mains := h.mainChats()
	var calls, answers []string
	for _, m := range mains[1].Messages {
		switch m.Role {
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				calls = append(calls, c.ID)
			}
		case llm.RoleTool:
			answers = append(answers, m.ToolCallID)
		}
	}
	if len(calls) != 3 || !slices.Equal(calls, answers) {
		t.Errorf("tool messages answer %v, calls were %v", answers, calls)
	}
	// Only sub-agents: no batch group of the parent's own, three wrappers.
	var titles []string
	for _, g := range payloads[event.ProgressGroupStart](h.live) {
		if g.ParentGroupID == "" {
			titles = append(titles, g.Title)
		}
	}
	slices.Sort(titles)
	if diff := cmp.Diff([]string{"Sub-agent: A", "Sub-agent: B", "Sub-agent: C"}, titles); diff != "" {
		t.Errorf("top-level groups (-want +got):\n%s", diff)
	}
	checkParity(t, h)
}

// The bar: deep-explore starts a sub-agent (broken in the seed).
func TestDeepExploreStartsSubagent(t *testing.T) {
	h := newModeHarness(t, modeOpt{})
	h.write("store.go", "package store\n\nfunc Open() {}\n")
	ro := &roles{
		main: []llmtest.Response{
			llmtest.Reply(llmtest.Text("Splitting the question."), subCall("How is the store opened?", "Trace store opening", `, "context_hint": "store.go"`)),
			llmtest.Reply(llmtest.Text("The store is opened by Open in store.go. [TASK_COMPLETE]")),
		},
		sub: func(task string, step int) llmtest.Response {
			if step == 0 {
				return llmtest.Reply(llmtest.ToolCall("read_file", `{"path": "store.go"}`))
			}
			return llmtest.Reply(llmtest.Text("Open is defined at store.go:3. [TASK_COMPLETE]"))
		},
	}
	h.srv.Handle(ro.handle)
	res := h.promptMode(event.ModeDeepExplore, "how does the store get opened?")
	if res.Status != event.FinishDone || !strings.Contains(res.FinalText, "Open in store.go") {
		t.Fatalf("result = %+v", res)
	}
	if ts := h.turnStarted(res.Turn); ts.Mode != event.ModeDeepExplore || ts.Dispatch != nil {
		t.Errorf("turn_started = %+v", ts)
	}
	mains := h.mainChats()
	if names := toolNames(mains[0]); !slices.Contains(names, tools.SubagentTool) || slices.Contains(names, "write_file") {
		t.Errorf("deep-explore tools = %v", names)
	}
	mustContain(t, "deep-explore prompt", mains[0].Messages[0].Content, "MAP", "TRACE DEPTH-FIRST", "CROSS-CUTTING ANALYSIS", "SYNTHESIZE",
		"DEPTH OVER BREADTH", "DON'T STOP EARLY", "FOLLOW IMPORTS", "USE PARALLEL CALLS")
	if subs := ro.subRequests(); len(subs) != 2 {
		t.Fatalf("%d sub-agent requests, want 2", len(subs))
	}
	if r := h.toolResults(); len(r) != 1 || r[0].Content != "Open is defined at store.go:3." {
		t.Errorf("results = %+v", r)
	}
	var wrapped bool
	for _, g := range payloads[event.ProgressGroupStart](h.live) {
		wrapped = wrapped || (g.Subagent && g.Title == "Sub-agent: Trace store opening")
	}
	if !wrapped {
		t.Error("no sub-agent group")
	}
}

// A deep-explore sub-agent may start sub-agents; theirs may not (depth 2).
func TestSubagentDepthLimit(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools()}})
	ro := &roles{
		main: []llmtest.Response{
			llmtest.Reply(subCall("investigate everything", "Outer", `, "mode": "deep-explore"`)),
			llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
		},
		sub: func(task string, step int) llmtest.Response {
			switch {
			case task == "investigate everything" && step == 0:
				return llmtest.Reply(subCall("look at one thing", "Inner", ""))
			case task == "investigate everything":
				return llmtest.Reply(llmtest.Text("outer answer [TASK_COMPLETE]"))
			case step == 0:
				// The innermost tries anyway: refused at run time.
				return llmtest.Reply(subCall("go deeper", "Deeper", ""))
			}
			return llmtest.Reply(llmtest.Text("inner answer [TASK_COMPLETE]"))
		},
	}
	h.srv.Handle(ro.handle)
	if res := h.prompt("investigate"); res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	var outer, inner *llmtest.Request
	for _, r := range ro.subRequests() {
		switch firstUser(r) {
		case "investigate everything":
			outer = r
		case "look at one thing":
			inner = r
		}
	}
	if outer == nil || inner == nil {
		t.Fatalf("outer %v, inner %v sub-agent requests", outer != nil, inner != nil)
	}
	if !slices.Contains(toolNames(outer), tools.SubagentTool) {
		t.Errorf("a deep-explore sub-agent (depth 1) lacks run_subagent: %v", toolNames(outer))
	}
	if slices.Contains(toolNames(inner), tools.SubagentTool) {
		t.Errorf("a depth-2 sub-agent was offered run_subagent: %v", toolNames(inner))
	}
	groups := map[string]event.ProgressGroupStart{}
	for _, g := range payloads[event.ProgressGroupStart](h.live) {
		groups[g.Title] = g
	}
	o, i := groups["Sub-agent: Outer"], groups["Sub-agent: Inner"]
	if o.ParentGroupID != "" || i.ParentGroupID != o.GroupID || !i.Subagent {
		t.Errorf("outer %+v, inner %+v: the inner wrapper must nest in the outer", o, i)
	}
	if _, ok := groups["Sub-agent: Deeper"]; ok {
		t.Error("a depth-3 sub-agent started")
	}
	// The outer sub-agent's result came back; the innermost's refused call
	// never reached the parent's conversation.
	if r := h.toolResults(); len(r) != 1 || r[0].Content != "outer answer" {
		t.Errorf("parent results = %+v", r)
	}
	checkParity(t, h)
}

// The explorer model: session override, then agent.explorerModel, then
// the orchestrator's model; each model decides native or text tools.
func TestExplorerModelResolution(t *testing.T) {
	cases := []struct {
		name, session, setting, want string
	}{
		{"session override wins", "sess-explorer", "cfg-explorer", "sess-explorer"},
		{"setting next", "", "cfg-explorer", "cfg-explorer"},
		{"orchestrator's model last", "", "", testModel},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools(), ExplorerModel: tc.setting},
				extra: map[string][]string{"sess-explorer": {"completion"}, "cfg-explorer": {"completion", "tools"}}})
			if tc.session != "" {
				if _, err := h.store.UpdateSession(context.Background(), h.sess.ID, func(s *store.Session) error {
					s.ExplorerModel = tc.session
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			ro := &roles{
				main: []llmtest.Response{
					llmtest.Reply(subCall("what is here?", "Look", "")),
					llmtest.Reply(llmtest.Text("ok [TASK_COMPLETE]")),
				},
				sub: func(string, int) llmtest.Response {
					return llmtest.Reply(llmtest.Text("nothing much [TASK_COMPLETE]"))
				},
			}
			h.srv.Handle(ro.handle)
			h.prompt("look around")
			subs := ro.subRequests()
			if len(subs) != 1 || subs[0].Model != tc.want {
				t.Fatalf("sub-agent requests %d, model %q, want %q", len(subs), subs[0].Model, tc.want)
			}
			// sess-explorer has no native tool calling: text calls for it.
			native := tc.want != "sess-explorer"
			if got := len(subs[0].Tools) > 0; got != native {
				t.Errorf("sub-agent sent tools natively: %v, want %v", got, native)
			}
			if !native {
				mustContain(t, "text-tool sub-agent prompt", subs[0].Messages[0].Content, "<tool_call>{", "### read_file")
			}
		})
	}
}

// A sub-agent that cannot run tells the parent model why; the person sees
// the error in the sub-agent's group.
func TestSubagentFailureIsAResult(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools(), ExplorerModel: "missing-model"}})
	h.srv.Enqueue(
		llmtest.Reply(subCall("look", "Look", "")),
		llmtest.Reply(llmtest.Text("The sub-agent failed, sorry. [TASK_COMPLETE]")),
	)
	res := h.prompt("look around")
	if res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	r := h.toolResults()
	if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, "The sub-agent failed") || !strings.Contains(r[0].Content, "missing-model") {
		t.Fatalf("results = %+v", r)
	}
	if errs := payloads[event.Error](h.live); len(errs) != 1 {
		t.Errorf("errors shown = %+v, want the sub-agent's one", errs)
	}
}

// Stopping the turn stops its sub-agents; nothing leaks (goleak in
// TestMain).
func TestCancelStopsSubagents(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools()}})
	var once sync.Once
	started := make(chan struct{})
	ro := &roles{
		main: []llmtest.Response{llmtest.Reply(subCall("a", "A", ""), subCall("b", "B", ""))},
		sub: func(string, int) llmtest.Response {
			once.Do(func() { close(started) })
			return llmtest.Hang()
		},
	}
	h.srv.Handle(ro.handle)
	done := make(chan *session.TurnResult, 1)
	go func() {
		res, _ := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "go"})
		done <- res
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no sub-agent started")
	}
	h.svc.Abort(h.sess.ID)
	var res *session.TurnResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not stop")
	}
	h.drain(res.Turn)
	if res.Status != event.FinishCanceled {
		t.Errorf("status %s, want canceled", res.Status)
	}
	for _, r := range h.toolResults() {
		if r.ToolName == tools.SubagentTool && !strings.Contains(r.Content, "canceled") && !strings.Contains(r.Content, "stopped") {
			t.Errorf("result of a stopped sub-agent: %q", r.Content)
		}
	}
	opened, closed := 0, 0
	for _, ev := range h.live {
		switch p := ev.Data.(type) {
		case event.ProgressGroupStart:
			if p.Subagent {
				opened++
			}
		case event.ProgressGroupFinish:
			if strings.HasPrefix(p.GroupID, "s") {
				closed++
			}
		}
	}
	if opened == 0 || opened != closed {
		t.Errorf("%d sub-agent groups opened, %d closed", opened, closed)
	}
}

// The sub-agent's answer is capped, at a line.
func TestCapAnswer(t *testing.T) {
	long := strings.Repeat("line of findings\n", 2000)
	got := capAnswer(long)
	if len(got) > subagentOutputMax+100 || !strings.HasSuffix(got, fmt.Sprintf("(The sub-agent's answer was cut at %d characters.)", subagentOutputMax)) {
		t.Errorf("capped answer: %d bytes, ends %q", len(got), got[len(got)-60:])
	}
	if capAnswer("  short  ") != "short" {
		t.Error("a short answer changed")
	}
}
