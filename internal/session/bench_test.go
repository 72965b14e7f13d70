package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// BenchmarkTree: the prompt tree of a session of 1,000 turns (10 events
// each, 10,000 events) with a branch every 100 turns, as `olly sessions
// tree` builds it.
func BenchmarkTree(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := New(Deps{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	sess, err := svc.Create(ctx, CreateOptions{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	var branchAt int64
	for turn := 1; turn <= 1000; turn++ {
		if turn%100 == 0 && branchAt > 0 {
			if err := st.SetLeaf(ctx, sess.ID, branchAt); err != nil {
				b.Fatal(err)
			}
		}
		for i, p := range []event.Payload{
			event.TurnStarted{Mode: "agent"}, event.UserMessage{Text: fmt.Sprintf("prompt %d", turn)},
			event.AssistantMessage{Text: "ok"}, event.ToolResult{ToolName: "x", Content: "y"},
			event.ToolAction{GroupID: "g", ActionID: "a", Status: event.ActionSuccess}, event.ToolAction{GroupID: "g", ActionID: "b"},
			event.ControlMessage{Kind: event.ControlContinuation, Content: "c"}, event.AssistantMessage{Text: "done"},
			event.FinalMessage{Text: "done"}, event.TurnFinished{Status: event.FinishDone},
		} {
			ev, err := svc.Emit(ctx, sess.ID, turn, p)
			if err != nil {
				b.Fatal(err)
			}
			if i == 9 && turn%100 == 50 {
				branchAt = ev.Seq
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tree, err := svc.Tree(ctx, sess.ID)
		if err != nil || len(tree.Roots) != 1 {
			b.Fatalf("tree: %v", err)
		}
	}
}
