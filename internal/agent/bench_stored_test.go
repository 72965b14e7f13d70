package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

// BenchmarkIterationStoredSpread runs long turns (100 iterations, 99 of
// them with a no-op tool call) through the session service and the real
// SQLite store, and reports the spread of iteration times: the time
// between consecutive model requests. Store work that lands on a single
// iteration (a WAL checkpoint inside a commit used to) shows as a p99 and
// a max far above the median, and in over-2x-median, the number of
// iterations per turn slower than twice the median.
func BenchmarkIterationStoredSpread(b *testing.B) {
	const steps = 100
	var stamps []time.Time
	prov := &memProvider{keep: true,
		details: llm.ModelDetails{Capabilities: llm.Capabilities{Known: true, Chat: true, Tools: true}, ContextLength: 1 << 20},
		next: func(req *llm.ChatRequest) []llm.ChatChunk {
			stamps = append(stamps, time.Now())
			n := 0
			for _, m := range req.Messages {
				if m.Role == llm.RoleAssistant {
					n++
				}
			}
			if n < steps-1 {
				return []llm.ChatChunk{
					{Content: "Calling the tool."},
					{ToolCalls: []llm.ToolCall{{Name: "noop", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, n))}}},
					{Done: true, DoneReason: llm.DoneStop, Metrics: &llm.Metrics{PromptTokens: 1000, CompletionTokens: 20}},
				}
			}
			return textChunks("All done. [TASK_COMPLETE]", 8)
		}}
	reg, err := tools.NewRegistry(noopTool{})
	if err != nil {
		b.Fatal(err)
	}
	a, err := New(Deps{Provider: prov, Tools: reg, Config: Config{Model: "m", MaxIterations: steps + 10}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := session.New(session.Deps{Store: st, Runner: a})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var iters []time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sess, err := svc.Create(ctx, session.CreateOptions{Workspace: dir})
		if err != nil {
			b.Fatal(err)
		}
		stamps = stamps[:0]
		b.StartTimer()
		res, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: "call the tool"})
		if err != nil || res.Status != event.FinishDone || res.Iterations != steps {
			b.Fatalf("turn: %+v, %v", res, err)
		}
		for k := 1; k < len(stamps); k++ {
			iters = append(iters, stamps[k].Sub(stamps[k-1]))
		}
	}
	b.StopTimer()
	n := float64(b.N * steps)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/iteration")
	b.ReportMetric(float64(cpuTime()-cpu0)/n, "cpu-ns/iteration")
	slices.Sort(iters)
	med := iters[len(iters)/2]
	over := 0
	for _, d := range iters {
		if d > 2*med {
			over++
		}
	}
	b.ReportMetric(float64(med.Microseconds()), "p50-µs")
	b.ReportMetric(float64(iters[len(iters)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(iters[len(iters)-1].Microseconds()), "max-µs")
	b.ReportMetric(float64(over)/float64(b.N), "over-2x-median/turn")
}
