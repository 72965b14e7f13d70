package session

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/store"
)

func TestStatsLastAnswerAndBranchPrompts(t *testing.T) {
	svc, st, sess := newService(t, nil)
	ctx := context.Background()
	emit := func(turn int, p event.Payload) event.Event {
		ev, err := svc.Emit(ctx, sess.ID, turn, p)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	if _, ok, err := svc.LastAnswer(ctx, sess.ID); ok || err != nil {
		t.Fatalf("last answer of an empty session: %v, %v", ok, err)
	}
	emit(1, event.TurnStarted{Mode: "agent"})
	p1 := emit(1, event.UserMessage{Text: "fix it"})
	emit(1, event.AssistantMessage{Iteration: 1, Text: "Looking.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file"}, {ID: "c2", Name: "read_file"}}})
	emit(1, event.ToolResult{ToolCallID: "c1"})
	emit(1, event.ToolResult{ToolCallID: "c2"})
	emit(1, event.TokenUsage{PromptTokens: 100, CompletionTokens: 10, ContextWindow: 8192})
	emit(1, event.UserMessage{Text: "use tabs", Steering: true})
	emit(1, event.AssistantMessage{Iteration: 2, Text: "Done with tabs."})
	cats := event.TokenCategories{System: 40, ToolDefinitions: 30, Messages: 50, ToolResults: 20, Files: 6, Instructions: 4}
	emit(1, event.TokenUsage{PromptTokens: 150, CompletionTokens: 5, ContextWindow: 8192, Categories: cats})
	emit(1, event.FinalMessage{Text: "Fixed, with tabs."})
	emit(1, event.TurnFinished{Status: event.FinishDone})
	emit(2, event.TurnStarted{Mode: "agent"})
	p2 := emit(2, event.UserMessage{Text: "thanks"})
	emit(2, event.AssistantMessage{Iteration: 1, Text: "You're welcome."})
	emit(2, event.TurnFinished{Status: event.FinishDone})

	ck := &store.Checkpoint{SessionID: sess.ID, TotalAdditions: 4, TotalDeletions: 1}
	if err := st.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddSnapshot(ctx, &store.FileSnapshot{CheckpointID: ck.ID, FilePath: "a.go", Status: store.FilePending, Existed: true}); err != nil {
		t.Fatal(err)
	}

	got, err := svc.Stats(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := &Stats{Turns: 2, UserMessages: 3, AssistantMessages: 3, ToolCalls: 2, ToolResults: 2,
		InputTokens: 250, OutputTokens: 15, ContextTokens: 150, ContextWindow: 8192, Context: cats,
		Pending: store.DiffStats{Additions: 4, Deletions: 1, Files: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if text, ok, err := svc.LastAnswer(ctx, sess.ID); !ok || err != nil || text != "You're welcome." {
		t.Errorf("last answer %q, %v, %v", text, ok, err)
	}
	prompts, err := svc.BranchPrompts(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantPrompts := []PromptRef{{Seq: p1.Seq, Turn: 1, Text: "fix it"}, {Seq: p2.Seq, Turn: 2, Text: "thanks"}}
	if diff := cmp.Diff(wantPrompts, prompts); diff != "" {
		t.Errorf("branch prompts (-want +got):\n%s", diff)
	}
	evs, err := svc.Events(ctx, sess.ID, p2.Seq, 2)
	if err != nil || len(evs) != 2 || evs[0].Seq != p2.Seq+1 || evs[0].Type() != event.TypeAssistantMessage {
		t.Errorf("events after %d: %+v, %v", p2.Seq, evs, err)
	}
	if last, err := svc.LastSeq(ctx, sess.ID); err != nil || last != p2.Seq+2 {
		t.Errorf("last seq %d, %v", last, err)
	}
}
