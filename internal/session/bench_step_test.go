//go:build unix

package session

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/store"
)

// stepRunner emits what an agent step emits, steps times, in one turn:
// the response and its call (stored before the tool runs: Sync), then the
// tool's progress and result. No model, no tool: the event path alone.
type stepRunner struct{ steps int }

func (r *stepRunner) RunTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	for i := range r.steps {
		g, a := fmt.Sprint("g", i), fmt.Sprint("a", i)
		call := event.ToolCall{ID: fmt.Sprint("call_", i), Name: "bash", Arguments: []byte(`{"command":"echo step"}`)}
		before := []event.Payload{
			event.TextDelta{Text: "Running the "}, event.TextDelta{Text: "next step."},
			event.AssistantMessage{Iteration: i + 1, Text: "Running the next step.", Content: "Running the next step.", ToolCalls: []event.ToolCall{call}},
			event.ProgressGroupStart{GroupID: g, Title: "Running commands"},
			event.ToolAction{GroupID: g, ActionID: a, Tool: "bash", Status: event.ActionPending, Text: "echo step"},
		}
		after := []event.Payload{
			event.ToolAction{GroupID: g, ActionID: a, Tool: "bash", Status: event.ActionRunning, Text: "echo step"},
			event.ToolAction{GroupID: g, ActionID: a, Tool: "bash", Status: event.ActionSuccess, Text: "echo step"},
			event.ToolResult{ToolCallID: call.ID, ToolName: "bash", Content: "step\n"},
			event.ProgressGroupFinish{GroupID: g},
			event.TokenUsage{PromptTokens: 1000 + i, CompletionTokens: 20, ContextWindow: 32768},
			event.ControlMessage{Kind: event.ControlContinuation, Content: `<agent_control>{"iteration":1}</agent_control>`, Iteration: i + 1},
		}
		for _, p := range before {
			if _, err := t.Emit(ctx, p); err != nil {
				return nil, err
			}
		}
		if err := t.Sync(ctx); err != nil {
			return nil, err
		}
		for _, p := range after {
			if _, err := t.Emit(ctx, p); err != nil {
				return nil, err
			}
		}
	}
	return &TurnResult{Turn: t.Number, Status: event.FinishDone, Iterations: r.steps, FinalText: "done"}, nil
}

// BenchmarkEmitStep: the event path of one agent step — emit (a durable
// event queued for the group commit, published once stored), Turn.Sync
// before the tool, the committer, the publisher — through the session
// service and the real store. 9 durable and 2 ephemeral events a step;
// b.N steps in one turn.
func BenchmarkEmitStep(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	r := &stepRunner{}
	svc, err := New(Deps{Store: st, Runner: r})
	if err != nil {
		b.Fatal(err)
	}
	sess, err := svc.Create(ctx, CreateOptions{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	// A frontend: a subscriber taking each event as it is published.
	sub := svc.Bus().Subscribe(func(ev event.Event) bool { return ev.Session == sess.ID })
	defer sub.Close()
	published := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := sub.Next(context.Background()); err != nil {
				return
			}
			published++
		}
	}()
	b.ReportAllocs()
	c0, e0 := st.Commits()
	cpu0 := cpuNanos()
	b.ResetTimer()
	r.steps = b.N
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "run the steps"}); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu := cpuNanos() - cpu0
	c1, e1 := st.Commits()
	sub.Close()
	<-done
	if published < 11*b.N {
		b.Fatalf("%d events published for %d steps, want at least %d", published, b.N, 11*b.N)
	}
	b.ReportMetric(float64(cpu)/1e3/float64(b.N), "cpu-µs/step")
	b.ReportMetric(float64(c1-c0)/float64(b.N), "commits/step")
	b.ReportMetric(float64(e1-e0)/float64(b.N), "stored/step")
}

// cpuNanos is the process's user+system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
