package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
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
	prov := noopModel(steps, 1<<20, func() { stamps = append(stamps, time.Now()) })
	svc, _ := storedService(b, noopAgent(b, prov, steps+10))
	ctx := context.Background()
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
