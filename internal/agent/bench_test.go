package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// noopTool does nothing, instantly.
type noopTool struct{}

func (noopTool) Spec() llm.Tool {
	return llm.Tool{Name: "noop", Description: "Does nothing.", Parameters: json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`)}
}

func (noopTool) Run(context.Context, *tools.Env, tools.Args) (*tools.Result, error) {
	return &tools.Result{Content: "ok", Display: event.ToolAction{Text: "Did nothing"}}, nil
}

const benchIterations = 10

// benchModel answers with a no-op call until the tenth response, which
// completes: one turn is ten iterations, nine of them with a tool batch.
func benchModel() *memProvider { return noopModel(benchIterations, 32768, nil) }

// noopModel answers with a no-op call until its steps-th response, which
// completes: one turn is steps iterations. onRequest, when set, is called
// at each request.
func noopModel(steps, contextLength int, onRequest func()) *memProvider {
	return &memProvider{keep: true,
		details: llm.ModelDetails{Capabilities: llm.Capabilities{Known: true, Chat: true, Tools: true}, ContextLength: contextLength},
		next: func(req *llm.ChatRequest) []llm.ChatChunk {
			if onRequest != nil {
				onRequest()
			}
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
}

func benchAgent(b *testing.B) *Agent { return noopAgent(b, benchModel(), 0) }

// noopAgent is an agent on prov with the no-op tool; maxIterations 0 is
// the default.
func noopAgent(b *testing.B, prov llm.Provider, maxIterations int) *Agent {
	reg, err := tools.NewRegistry(noopTool{})
	if err != nil {
		b.Fatal(err)
	}
	a, err := New(Deps{Provider: prov, Tools: reg, Config: Config{Model: "m", MaxIterations: maxIterations}})
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// storedService is the session service running a's turns over the real
// SQLite store, in a temporary folder; the store closes when the
// benchmark function returns.
func storedService(b *testing.B, a *Agent) (*session.Service, *store.Store) {
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc, err := session.New(session.Deps{Store: st, Runner: a})
	if err != nil {
		b.Fatal(err)
	}
	return svc, st
}

// busEmit publishes a detached turn's events to bus (no store), numbering
// the durable ones after *seq.
func busEmit(bus *event.Bus, turn int, seq *int64) session.EmitFunc {
	return func(_ context.Context, p event.Payload) (event.Event, error) {
		ev := event.Event{Session: "bench", Turn: turn, Data: p}
		if ev.Durable() {
			*seq++
			ev.Seq = *seq
		}
		bus.Publish(ev)
		return ev, nil
	}
}

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func reportPerIteration(b *testing.B, cpu0 int64) {
	iters := float64(b.N * benchIterations)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/iters, "ns/iteration")
	b.ReportMetric(float64(cpuTime()-cpu0)/iters, "cpu-ns/iteration")
}

// BenchmarkIteration measures the agent's own work per iteration — request
// building from the conversation, streaming with the throttle goroutine,
// parsing, the tool runner, the control plane, events — against an
// in-process model with zero latency and a no-op tool. Events go to a bus
// (no store): this is the loop's overhead, not SQLite's.
func BenchmarkIteration(b *testing.B) {
	a := benchAgent(b)
	ws, err := workspace.New([]string{b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	bus := event.NewBus()
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var seq int64
		t := session.NewTurn("bench", 1, ws, session.PromptInput{Text: "call the tool nine times"}, nil, busEmit(bus, 1, &seq))
		res, err := a.RunTurn(ctx, t)
		if err != nil || res.Status != event.FinishDone || res.Iterations != benchIterations {
			b.Fatalf("turn: %+v, %v", res, err)
		}
	}
	b.StopTimer()
	reportPerIteration(b, cpu0)
}

// BenchmarkIterationStored is the same turn through the session service
// with the real SQLite store: every durable event is committed before it
// is published.
func BenchmarkIterationStored(b *testing.B) {
	svc, st := storedService(b, benchAgent(b))
	ctx := context.Background()
	dir := b.TempDir()
	b.ReportAllocs()
	c0, _ := st.Commits()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sess, err := svc.Create(ctx, session.CreateOptions{Workspace: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: "call the tool nine times"})
		if err != nil || res.Status != event.FinishDone {
			b.Fatalf("turn: %+v, %v", res, err)
		}
	}
	b.StopTimer()
	reportPerIteration(b, cpu0)
	c1, _ := st.Commits()
	b.ReportMetric(float64(c1-c0)/float64(b.N*benchIterations), "commits/iteration")
}

// streamBenchText is a ~9 KB response in the text tool-calling format:
// prose, a 4 KB write_file call, more prose and the signal.
func streamBenchText() string {
	var b strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "Step %d: the parser reads each line, checks the header, and keeps the fields it needs. ", i)
	}
	code := strings.Repeat("func f() {\\n\\treturn x + 1 // \\\"quoted\\\"\\n}\\n", 100)
	b.WriteString(`<tool_call>{"name": "write_file", "arguments": {"path": "a.go", "content": "` + code + `"}}</tool_call>`)
	for i := 0; i < 20; i++ {
		b.WriteString("Then the tests run and report what failed. ")
	}
	b.WriteString("[TASK_COMPLETE]")
	return b.String()
}

// BenchmarkStream compares the stream processor on one response arriving
// in 5-byte chunks and in one chunk. Work must be linear in the bytes, not
// in the chunks' overlap: the target is at most 3× for 5-byte chunks.
func BenchmarkStream(b *testing.B) {
	text := streamBenchText()
	known := map[string]bool{"write_file": true, "read_file": true}
	for _, size := range []int{5, len(text)} {
		name := fmt.Sprintf("chunk=%dB", size)
		if size == len(text) {
			name = "chunk=whole"
		}
		b.Run(name, func(b *testing.B) {
			chunks := textChunks(text, size)
			prov := &memProvider{keep: true, next: func(*llm.ChatRequest) []llm.ChatChunk { return chunks }}
			s := &streamer{provider: prov, clock: realClock{}, emit: func(context.Context, event.Payload) error { return nil }, iter: 1, known: known}
			req := &llm.ChatRequest{}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res := s.run(context.Background(), req)
				if len(res.textCalls) != 1 || !res.complete {
					b.Fatalf("result: %d calls, complete %v", len(res.textCalls), res.complete)
				}
			}
		})
	}
}
