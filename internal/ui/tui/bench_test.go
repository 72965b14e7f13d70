package tui

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// answerTokens is a 2,000-token answer as the model streams it: prose,
// lists and code blocks, a few characters per token.
func answerTokens() []string {
	var b strings.Builder
	for i := 0; b.Len() < 8000; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "## Step %d\n\nThe handler reads the request, checks the session and writes the reply; errors are wrapped with context.\n\n", i)
		case 1:
			b.WriteString("- the store appends the event\n- the bus publishes it\n- every frontend renders it\n\n")
		case 2:
			b.WriteString("```go\nfunc (s *Service) Emit(ctx context.Context, p event.Payload) error {\n\treturn s.store.Append(ctx, p)\n}\n```\n\n")
		default:
			b.WriteString("That keeps the live view and the history the same, which the parity test checks.\n\n")
		}
	}
	text := b.String()
	var toks []string
	for len(text) > 0 && len(toks) < 2000 {
		n := min(4, len(text))
		toks = append(toks, text[:n])
		text = text[n:]
	}
	return toks
}

// BenchmarkStreamFrame measures the render work of one frame while a
// 2,000-token answer streams under a finished turn: applying the delta
// and rendering the screen, with a keystroke typed every tenth token. It
// reports the slowest and the 99th-percentile frame of the stream, in wall
// time (max-ms/frame, p99-ms/frame, which on a shared machine include time
// other processes held the core) and in the CPU time of the rendering
// thread (max-cpu-ms/frame, p99-cpu-ms/frame).
func BenchmarkStreamFrame(b *testing.B) {
	toks := answerTokens()
	var walls, cpus []time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	for b.Loop() {
		m := newModel(120, 40, Deps{})
		m.Update(history(finishedTurn()))
		m.Update(eventMsg{event.Event{Session: "S1", Seq: 100, Turn: 2, Data: event.TurnStarted{Mode: "agent"}}})
		for i, tok := range toks {
			start, startCPU := time.Now(), threadCPU()
			m.Update(eventMsg{event.Event{Session: "S1", Turn: 2, Data: event.TextDelta{Iteration: 1, Text: tok}}})
			if i%10 == 0 {
				m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
			}
			_ = m.Render()
			walls = append(walls, time.Since(start))
			cpus = append(cpus, threadCPU()-startCPU)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(walls))/1e6, "ms/frame")
	b.ReportMetric(ms(quantile(walls, 1)), "max-ms/frame")
	b.ReportMetric(ms(quantile(walls, 0.99)), "p99-ms/frame")
	b.ReportMetric(ms(quantile(cpus, 1)), "max-cpu-ms/frame")
	b.ReportMetric(ms(quantile(cpus, 0.99)), "p99-cpu-ms/frame")
}

// quantile is the q-quantile (0 < q ≤ 1) of ds, by rank; it sorts ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// BenchmarkOpenSession5000 measures opening a stored session of 5,000
// events to its first screen: reading the branch from SQLite, building
// the timeline and rendering. heap-MB is the live heap held by the open
// model afterwards; cpu-ms/open the CPU time of the opening thread (the
// store's reads run partly on other threads, so ns/op is the figure to
// hold against the target).
func BenchmarkOpenSession5000(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := session.New(session.Deps{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	sess, err := svc.Create(ctx, session.CreateOptions{Workspace: b.TempDir(), Mode: "agent", Model: "qwen3:8b"})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for turn := 1; n < 5000; turn++ {
		s := finishedTurn()
		for _, ev := range s.evs {
			if _, err := svc.Emit(ctx, sess.ID, turn, ownIDs(ev.Data, turn)); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	var heap float64
	var cpu time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		startCPU := threadCPU()
		h, err := Load(ctx, svc, svc, sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		m := New(ctx, Options{Width: 120, Height: 40, Dark: true, Tick: -1})
		m.Update(historyMsg{info: h.info, evs: h.evs})
		if scr := ansi.Strip(m.Render()); !strings.Contains(scr, "One test still fails") {
			b.Fatalf("the first screen does not show the last answer:\n%s", scr)
		}
		cpu += threadCPU() - startCPU
		b.StopTimer()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(int64(after.HeapInuse)-int64(before.HeapInuse)) / (1 << 20)
		runtime.KeepAlive(m)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/open")
	b.ReportMetric(float64(n), "events")
	b.ReportMetric(heap, "heap-MB")
}

// ownIDs gives a turn's groups, actions and checkpoint ids of its own.
func ownIDs(p event.Payload, turn int) event.Payload {
	sfx := fmt.Sprintf("-%d", turn)
	switch p := p.(type) {
	case event.ProgressGroupStart:
		p.GroupID += sfx
		return p
	case event.ProgressGroupFinish:
		p.GroupID += sfx
		return p
	case event.ToolAction:
		p.GroupID, p.ActionID = p.GroupID+sfx, p.ActionID+sfx
		if p.CheckpointID != "" {
			p.CheckpointID += sfx
		}
		return p
	case event.FilesChanged:
		p.CheckpointID += sfx
		return p
	}
	return p
}
