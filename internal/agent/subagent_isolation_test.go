package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/timeline"
	"github.com/olly-agent/olly/internal/tools"
)

// The bar: only tool UI from a sub-agent reaches the parent's timeline,
// nested in its group; its text goes to the parent model only.
func TestSubagentIsolation(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools(), ExplorerModel: "explorer"},
		extra: map[string][]string{"explorer": {"completion", "tools", "thinking"}}})
	h.write("greet.go", "package greet\n\nfunc Greet() string { return \"hi\" }\n")
	ro := &roles{
		main: []llmtest.Response{
			llmtest.Reply(llmtest.Text("I'll have a look."), subCall("Find where the greeting is defined. Do not modify any files.", "Find the greeting",
				`, "description": "Looks for the greeting function", "context_hint": "start from greet.go"`)),
			llmtest.Reply(llmtest.Text("Greet is in greet.go. [TASK_COMPLETE]")),
		},
		sub: func(task string, step int) llmtest.Response {
			if step == 0 {
				return llmtest.Reply(llmtest.Thinking("the hint says greet.go"), llmtest.Text("Reading it."),
					llmtest.ToolCall("read_file", `{"path": "greet.go"}`))
			}
			return llmtest.Reply(llmtest.Thinking("found it"), llmtest.Text("SUB-ANSWER: greet.go:3 defines Greet. [TASK_COMPLETE]"))
		},
	}
	h.srv.Handle(ro.handle)
	res := h.prompt("where is the greeting?")
	if res.Status != event.FinishDone || res.FinalText != "Greet is in greet.go." {
		t.Fatalf("result = %+v", res)
	}
	// What the sub-agent read reaches the session's memory: the
	// orchestrator reads through sub-agents.
	if !strings.Contains(string(res.Memory), "greet.go") {
		t.Errorf("session memory lacks the file the sub-agent read: %s", res.Memory)
	}
	// The sub-agent's instructions are the orchestrator's, not the
	// person's: they are no preference of the session.
	if strings.Contains(string(res.Memory), "modify") {
		t.Errorf("the sub-agent's task became a session preference: %s", res.Memory)
	}

	var wrapper event.ProgressGroupStart
	for _, g := range payloads[event.ProgressGroupStart](h.live) {
		if g.Subagent {
			wrapper = g
		}
	}
	want := event.ProgressGroupStart{GroupID: wrapper.GroupID, Title: "Sub-agent: Find the greeting", Detail: "Looks for the greeting function", Subagent: true}
	if wrapper.GroupID == "" || wrapper != want {
		t.Fatalf("wrapper group = %+v, want %+v", wrapper, want)
	}
	checkSubagentWindow(t, h, wrapper)

	// The answer went to the parent model only, as the call's result.
	results := h.toolResults()
	if len(results) != 1 || results[0].ToolName != tools.SubagentTool || results[0].Content != "SUB-ANSWER: greet.go:3 defines Greet." {
		t.Fatalf("parent's tool results = %+v", results)
	}
	mains := h.mainChats()
	if len(mains) != 2 {
		t.Fatalf("%d main requests, want 2", len(mains))
	}
	var got []string
	for _, m := range mains[1].Messages {
		if m.Role == llm.RoleTool {
			got = append(got, m.ToolName+": "+m.Content)
		}
	}
	if diff := cmp.Diff([]string{"run_subagent: SUB-ANSWER: greet.go:3 defines Greet."}, got); diff != "" {
		t.Errorf("parent's tool messages (-want +got):\n%s", diff)
	}
	if names := toolNames(mains[0]); !slices.Equal(names, []string{"write_file", "run_subagent", "run_terminal_command"}) {
		t.Errorf("orchestrator tools = %v", names)
	}

	checkSubagentRequests(t, ro.subRequests())

	checkSubagentTimeline(t, h.stored())
	checkParity(t, h)
}

// checkSubagentWindow checks the sub-agent's events between its wrapper
// group's start and finish, live and stored.
func checkSubagentWindow(t *testing.T, h *harness, wrapper event.ProgressGroupStart) {
	t.Helper()
	// Live and stored: every event of the sub-agent's window is tool UI,
	// its groups nest in the wrapper, and its actions are in its groups.
	for name, evs := range map[string][]event.Event{"live": h.live, "stored": h.stored()} {
		groups := map[string]bool{wrapper.GroupID: true}
		inside := window(t, evs, wrapper.GroupID)
		if len(inside) == 0 {
			t.Fatalf("%s: nothing of the sub-agent was shown", name)
		}
		for _, ev := range inside {
			if !subagentVisible()[ev.Type()] {
				t.Errorf("%s: a %s event of the sub-agent reached the parent: %+v", name, ev.Type(), ev.Data)
			}
			switch p := ev.Data.(type) {
			case event.ProgressGroupStart:
				if !groups[p.ParentGroupID] {
					t.Errorf("%s: sub-agent group %+v is not nested in the wrapper", name, p)
				}
				groups[p.GroupID] = true
			case event.ToolAction:
				if !groups[p.GroupID] {
					t.Errorf("%s: sub-agent action %+v is outside its groups", name, p)
				}
			}
		}
		count := map[event.Type]int{}
		for _, ev := range evs {
			count[ev.Type()]++
		}
		for typ, n := range map[event.Type]int{event.TypeTurnStarted: 1, event.TypeTurnFinished: 1, event.TypeFinalMessage: 1,
			event.TypeAssistantMessage: 2, event.TypeTokenUsage: 2, event.TypeUserMessage: 1, event.TypeToolResult: 1} {
			if count[typ] != n {
				t.Errorf("%s: %d %s events, want %d (the parent's own)", name, count[typ], typ, n)
			}
		}
	}
	for _, a := range payloads[event.ToolAction](h.live) {
		if a.Tool == tools.SubagentTool {
			t.Errorf("the parent showed an action line for run_subagent: %+v", a)
		}
	}
	for _, d := range payloads[event.TextDelta](h.live) {
		if strings.Contains(d.Text, "SUB-ANSWER") || strings.Contains(d.Text, "Reading it") {
			t.Errorf("the sub-agent's text streamed to the parent: %q", d.Text)
		}
	}
}

// checkSubagentRequests checks what the sub-agent sent the model.
func checkSubagentRequests(t *testing.T, subs []*llmtest.Request) {
	t.Helper()
	// The sub-agent: explorer model, read-only tools, its own prompt and
	// conversation (the task only).
	if len(subs) != 2 {
		t.Fatalf("%d sub-agent requests, want 2", len(subs))
	}
	s0 := subs[0]
	if s0.Model != "explorer" {
		t.Errorf("sub-agent model = %q, want the explorer", s0.Model)
	}
	if names := toolNames(s0); slices.Contains(names, "write_file") || slices.Contains(names, tools.SubagentTool) || !slices.Contains(names, "read_file") {
		t.Errorf("sub-agent tools = %v: read-only, and no sub-agents of its own at depth 1 in explore mode", names)
	}
	mustContain(t, "sub-agent prompt", s0.Messages[0].Content, "FOCUS AREA\nstart from greet.go", "under 1500 words", "goes back to the main agent")
	if len(s0.Messages) != 2 || s0.Messages[1].Content != "Find where the greeting is defined. Do not modify any files." {
		t.Errorf("sub-agent conversation = %+v, want the system prompt and its task", s0.Messages)
	}
}

// checkSubagentTimeline checks the timeline built from the stored events.
func checkSubagentTimeline(t *testing.T, stored []event.Event) {
	t.Helper()
	// The timeline: one group block for the sub-agent, its batch nested,
	// its reasoning collapsed on it, none of its text.
	tl := timeline.Build(stored)
	var item *timeline.Item
	for _, it := range tl.Items {
		if it.Kind == timeline.KindAssistant {
			item = it
		}
	}
	var sg *timeline.Group
	for _, b := range item.Blocks {
		if b.Kind == timeline.BlockGroup && b.Group.Subagent {
			sg = b.Group
		}
		if strings.Contains(b.Text, "SUB-ANSWER") || strings.Contains(b.Text, "Reading it") {
			t.Errorf("the sub-agent's text is in the parent's message: %+v", b)
		}
	}
	if sg == nil || sg.Title != "Sub-agent: Find the greeting" || sg.Detail != "Looks for the greeting function" || !sg.Done {
		t.Fatalf("sub-agent group = %+v", sg)
	}
	if len(sg.Children) != 1 || sg.Children[0].Title != "Reading files" || len(sg.Children[0].Actions) == 0 ||
		!strings.Contains(sg.Children[0].Actions[0].Text, "greet.go") {
		t.Errorf("sub-agent group children = %+v", sg.Children)
	}
	if diff := cmp.Diff([]string{"the hint says greet.go", "found it"}, sg.Thinking); diff != "" {
		t.Errorf("sub-agent thinking (-want +got):\n%s", diff)
	}
	if last := item.Blocks[len(item.Blocks)-1]; last.Kind != timeline.BlockFinal || last.Text != "Greet is in greet.go." {
		t.Errorf("last block = %+v, want the parent's final message", last)
	}
}
