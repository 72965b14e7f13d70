package timeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/olly-agent/olly/internal/event"
)

// script is a turn as the agent emits it, deltas included.
func script() []event.Event {
	at := time.Unix(0, 0)
	var evs []event.Event
	add := func(turn int, p event.Payload) {
		evs = append(evs, event.Event{Session: "s", Turn: turn, At: at, Data: p})
	}
	add(1, event.UserMessage{Text: "make hello.go and run it"})
	add(1, event.TurnStarted{Mode: "agent", Model: "m"})
	// Text arrives before thinking live; thinking must still render first.
	add(1, event.TextDelta{Iteration: 1, Text: "I will "})
	add(1, event.ThinkingDelta{Iteration: 1, Text: "need a file"})
	add(1, event.TextDelta{Iteration: 1, Text: "write it[TASK"})
	add(1, event.ThinkingBlock{Iteration: 1, Content: "need a file", DurationMs: 5})
	add(1, event.AssistantMessage{Iteration: 1, Text: "I will write it", Content: "I will write it"})
	add(1, event.ProgressGroupStart{GroupID: "g1", Title: "Writing files"})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "write_file", Status: event.ActionRunning, Text: "Writing hello.go"})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "write_file", Status: event.ActionSuccess, Text: "Wrote hello.go", CheckpointID: "c1", Additions: 5})
	add(1, event.FilesChanged{CheckpointID: "c1", Status: "pending", Files: []event.ChangedFile{{Path: "hello.go", Action: "created", Additions: 5}}})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a2", Tool: "run_terminal_command", Status: event.ActionPending, Text: "go run hello.go"})
	add(1, event.ApprovalRequested{ApprovalID: "p1", ActionID: "a2", Kind: event.ApprovalCommand, Command: "go run hello.go", Severity: "none", Reason: "runs a program"})
	add(1, event.ApprovalResolved{ApprovalID: "p1", Kind: event.ApprovalCommand, Decision: event.DecisionApproved, Command: "go run ./hello.go"})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a2", Tool: "run_terminal_command", Status: event.ActionRunning, Text: "go run ./hello.go"})
	add(1, event.ToolOutput{ActionID: "a2", Text: "hello\n"})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a2", Tool: "run_terminal_command", Status: event.ActionSuccess, Text: "go run ./hello.go", Output: "hello\n"})
	add(1, event.ProgressGroupFinish{GroupID: "g1"})
	// A sub-agent nests inside its wrapper group.
	add(1, event.ProgressGroupStart{GroupID: "g2", Title: "Sub-agent: look around", Subagent: true})
	add(1, event.ProgressGroupStart{GroupID: "g3", Title: "Reading files", ParentGroupID: "g2"})
	add(1, event.ToolAction{GroupID: "g3", ActionID: "a3", Tool: "read_file", Status: event.ActionSuccess, Text: "Read go.mod"})
	add(1, event.SubagentThinking{GroupID: "g2", Content: "go.mod is small"})
	add(1, event.ProgressGroupFinish{GroupID: "g2"})
	// An iteration whose streamed text was only markup ends with no text.
	add(1, event.TextDelta{Iteration: 2, Text: "<tool"})
	add(1, event.ThinkingDelta{Iteration: 2, Text: "   "})
	add(1, event.AssistantMessage{Iteration: 2, Text: ""})
	add(1, event.Status{Text: "Summarising…"})
	add(1, event.TokenUsage{PromptTokens: 900, ContextWindow: 8192})
	add(1, event.FinalMessage{Text: "Created hello.go and ran it."})
	add(1, event.TurnFinished{Status: event.FinishDone, Iterations: 2})
	add(1, event.TitleChanged{Title: "Hello"})
	return evs
}

func durableOnly(evs []event.Event) []event.Event {
	var out []event.Event
	for _, ev := range evs {
		if ev.Durable() {
			out = append(out, ev)
		}
	}
	return out
}

func asJSON(t *testing.T, tl *Timeline) string {
	t.Helper()
	b, err := json.MarshalIndent(tl, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLiveEqualsDurable(t *testing.T) {
	live := asJSON(t, Build(script()))
	stored := asJSON(t, Build(durableOnly(script())))
	if diff := cmp.Diff(stored, live); diff != "" {
		t.Fatalf("live timeline differs from stored (-stored +live):\n%s", diff)
	}
}

func TestStructure(t *testing.T) {
	tl := Build(script())
	if tl.Title != "Hello" {
		t.Errorf("title = %q", tl.Title)
	}
	if len(tl.Items) != 2 || tl.Items[0].Kind != KindUser || tl.Items[1].Kind != KindAssistant {
		t.Fatalf("want one user item and one assistant item, got %s", asJSON(t, tl))
	}
	as := tl.Items[1]
	var kinds []string
	for _, b := range as.Blocks {
		kinds = append(kinds, b.Kind)
	}
	want := []string{BlockThinking, BlockText, BlockGroup, BlockFiles, BlockGroup, BlockFinal}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("block order (-want +got):\n%s", diff)
	}
	if as.Blocks[1].Text != "I will write it" {
		t.Errorf("text block = %q, want the durable text (deltas superseded)", as.Blocks[1].Text)
	}
	g1 := as.Blocks[2].Group
	if len(g1.Actions) != 2 || !g1.Done {
		t.Fatalf("group g1 = %+v", g1)
	}
	run := g1.Actions[1]
	if run.Approval == nil || run.Approval.Decision != event.DecisionApproved || run.Approval.ApprovedCommand != "go run ./hello.go" {
		t.Errorf("approval on action = %+v", run.Approval)
	}
	if run.LiveOutput != "" || run.Output != "hello\n" {
		t.Errorf("final output = %q live %q", run.Output, run.LiveOutput)
	}
	sub := as.Blocks[4].Group
	if !sub.Subagent || len(sub.Children) != 1 || len(sub.Children[0].Actions) != 1 || len(sub.Thinking) != 1 {
		t.Errorf("sub-agent group = %s", asJSON(t, &Timeline{Items: []*Item{{Blocks: []*Block{as.Blocks[4]}}}}))
	}
	if as.Status != event.FinishDone || as.Live != "" || as.TokenUsage == nil {
		t.Errorf("item status %q live %q usage %v", as.Status, as.Live, as.TokenUsage)
	}
}

func TestFilesWidgetMergesAndResolves(t *testing.T) {
	b := NewBuilder()
	apply := func(p event.Payload) { b.Apply(event.Event{Turn: 1, Data: p}) }
	apply(event.FilesChanged{CheckpointID: "c1", Status: "pending", Files: []event.ChangedFile{{Path: "a", Additions: 1}}})
	apply(event.FilesChanged{CheckpointID: "c1", Status: "pending", Files: []event.ChangedFile{{Path: "a", Additions: 3}, {Path: "b", Additions: 2}}})
	apply(event.FilesChanged{CheckpointID: "c2", Status: "pending", Files: []event.ChangedFile{{Path: "z"}}})
	blocks := b.Timeline().Items[0].Blocks
	if len(blocks) != 2 {
		t.Fatalf("want one widget per checkpoint, got %d blocks", len(blocks))
	}
	if got := blocks[0].Files.Files; len(got) != 2 || got[0].Additions != 3 {
		t.Fatalf("merged files = %+v", got)
	}
	// A hunk result that leaves the file pending changes nothing.
	apply(event.FileChangeResult{CheckpointID: "c1", FilePath: "a", Action: "keep", Hunk: 1, Success: true})
	if len(b.Timeline().Items[0].Blocks[0].Files.Files) != 2 {
		t.Fatal("partial hunk keep removed the file")
	}
	apply(event.FileChangeResult{CheckpointID: "c1", FilePath: "a", Action: "keep", Success: true})
	apply(event.FileChangeResult{CheckpointID: "c1", FilePath: "b", Action: "undo", Success: false})
	if got := b.Timeline().Items[0].Blocks[0].Files.Files; len(got) != 1 || got[0].Path != "b" {
		t.Fatalf("after keeping a and a failed undo of b: %+v", got)
	}
	apply(event.KeepUndoResult{CheckpointID: "c2", Action: "undo", Success: true})
	apply(event.FileChangeResult{CheckpointID: "c1", FilePath: "b", Action: "undo", Success: true, Resolved: true})
	if n := len(b.Timeline().Items[0].Blocks); n != 0 {
		t.Fatalf("%d blocks left after every file was resolved", n)
	}
}

func TestCanceledStreamLeavesNothingUnconfirmed(t *testing.T) {
	evs := []event.Event{
		{Turn: 1, Data: event.TextDelta{Iteration: 1, Text: "partial"}},
		{Turn: 1, Data: event.ThinkingDelta{Iteration: 1, Text: "hmm"}},
		{Turn: 1, Data: event.ProgressGroupStart{GroupID: "g"}},
		{Turn: 1, Data: event.TurnFinished{Status: event.FinishCanceled}},
	}
	live, stored := asJSON(t, Build(evs)), asJSON(t, Build(durableOnly(evs)))
	if live != stored {
		t.Fatalf("canceled turn: live\n%s\nstored\n%s", live, stored)
	}
}

func TestActionWithoutGroupAndApprovalWithoutAction(t *testing.T) {
	b := NewBuilder()
	b.Apply(event.Event{Turn: 3, Data: event.ToolAction{GroupID: "nope", ActionID: "x", Tool: "read_file", Status: event.ActionSuccess}})
	b.Apply(event.Event{Turn: 3, Data: event.ApprovalRequested{ApprovalID: "p", Kind: event.ApprovalDirectory, FilePath: "/etc", Reason: "outside"}})
	it := b.Timeline().Items[0]
	if len(it.Blocks) != 2 || len(it.Blocks[0].Group.Actions) != 1 || it.Blocks[1].Group.Actions[0].Approval == nil {
		t.Fatalf("orphans lost: %s", asJSON(t, b.Timeline()))
	}
}

// TestPromptBeforeItsAnswer: the agent emits turn_started before the user
// message; the prompt still renders before the assistant message it opened
// (it rendered after it, a bug found by the session exports).
func TestPromptBeforeItsAnswer(t *testing.T) {
	evs := []event.Event{
		{Session: "s", Seq: 1, Turn: 1, Data: event.TurnStarted{Mode: "agent", Model: "m"}},
		{Session: "s", Seq: 2, Turn: 1, Data: event.UserMessage{Text: "first"}},
		{Session: "s", Seq: 3, Turn: 1, Data: event.FinalMessage{Text: "one"}},
		{Session: "s", Seq: 4, Turn: 1, Data: event.TurnFinished{Status: event.FinishDone}},
		{Session: "s", Seq: 5, Turn: 2, Data: event.TurnStarted{Mode: "agent", Model: "m"}},
		{Session: "s", Seq: 6, Turn: 2, Data: event.UserMessage{Text: "second"}},
		{Session: "s", Seq: 7, Turn: 2, Data: event.TurnFinished{Status: event.FinishDone}},
	}
	var got []string
	for _, it := range Build(evs).Items {
		got = append(got, fmt.Sprintf("%s %d", it.Kind, it.Turn))
	}
	want := []string{"user 1", "assistant 1", "user 2", "assistant 2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("item order (-want +got):\n%s", diff)
	}
}

// A message sent into a running turn (steer) stands inside that turn,
// between the work before and after it; it is no prompt of its own.
func TestSteeringStandsWhereItWasRead(t *testing.T) {
	at := time.Unix(0, 0)
	var evs []event.Event
	add := func(p event.Payload) {
		evs = append(evs, event.Event{Session: "s", Turn: 1, Seq: int64(len(evs) + 1), At: at, Data: p})
	}
	add(event.TurnStarted{Mode: "agent", Model: "m"})
	add(event.UserMessage{Text: "indent the file"})
	add(event.AssistantMessage{Iteration: 1, Text: "Using spaces.", Content: "Using spaces."})
	add(event.UserMessage{Text: "use tabs", Steering: true})
	add(event.AssistantMessage{Iteration: 2, Text: "Switched to tabs.", Content: "Switched to tabs."})
	add(event.TurnFinished{Status: event.FinishDone, Iterations: 2})
	tl := Build(evs)
	if len(tl.Items) != 2 || tl.Items[0].Kind != KindUser || tl.Items[0].Text != "indent the file" || tl.Items[1].Kind != KindAssistant {
		b, _ := json.Marshal(tl.Items)
		t.Fatalf("items: %s", b)
	}
	var got []string
	for _, b := range tl.Items[1].Blocks {
		got = append(got, b.Kind+":"+b.Level+":"+b.Text)
	}
	want := []string{"text::Using spaces.", "notice:steering:use tabs", "text::Switched to tabs."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

// TestMCPServerFailureIsAWarning: an MCP server's failure shows as a
// warning notice in every frontend that renders the timeline.
func TestMCPServerFailureIsAWarning(t *testing.T) {
	b := NewBuilder()
	b.Apply(event.Event{Turn: 1, Data: event.MCPServerFailed{Server: "gh", Error: "MCP server gh: connect: exit status 1"}})
	blocks := b.Timeline().Items[0].Blocks
	if len(blocks) != 1 || blocks[0].Kind != BlockNotice || blocks[0].Level != "warning" || !strings.Contains(blocks[0].Text, "MCP server gh") {
		t.Fatalf("blocks: %s", asJSON(t, b.Timeline()))
	}
}
