package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// growthStep and growthDone are the fake server's answers in
// BenchmarkIterationGrowth: a no-op tool call, and the final answer.
const (
	growthStep = `{"model":"m","created_at":"2025-06-01T12:00:00Z","message":{"role":"assistant","content":"Calling the tool.","tool_calls":[{"id":"call_x","function":{"index":0,"name":"noop","arguments":{"i":1}}}]},"done":false}
{"model":"m","created_at":"2025-06-01T12:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":1,"load_duration":1,"prompt_eval_count":900,"prompt_eval_duration":1,"eval_count":20,"eval_duration":1}
`
	growthDone = `{"model":"m","created_at":"2025-06-01T12:00:00Z","message":{"role":"assistant","content":"All done. [TASK_COMPLETE]"},"done":false}
{"model":"m","created_at":"2025-06-01T12:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":1,"load_duration":1,"prompt_eval_count":900,"prompt_eval_duration":1,"eval_count":20,"eval_duration":1}
`
)

// growthTransport answers every chat request in process (no sockets): it
// reads the whole body, as a server does, and streams answer.
type growthTransport struct{ answer *string }

func (t growthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/x-ndjson"}},
		Body:   io.NopCloser(strings.NewReader(*t.answer)), ContentLength: -1, Request: r}, nil
}

// growthProvider is the real Ollama client (request building, encode
// cache, stream parsing) over growthTransport. It notes the CPU time at
// each request and ends the turn once the request carries stop messages.
type growthProvider struct {
	llm.Provider
	answer string
	stop   int
	cpu    []int64 // CPU time at each request
	heap   []heapAllocs
	msgs   []int // messages in each request
	// winCPU is the CPU of winN iterations in the window (window), winHeap
	// what they allocated.
	winCPU, winN int64
	winHeap      heapAllocs
}

// heapAllocs are the bytes and objects allocated so far (runtime/metrics:
// no stop of the world, unlike runtime.ReadMemStats).
type heapAllocs struct{ bytes, objects uint64 }

var heapSamples = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}

func readHeapAllocs() heapAllocs {
	metrics.Read(heapSamples)
	return heapAllocs{heapSamples[0].Value.Uint64(), heapSamples[1].Value.Uint64()}
}

func (p *growthProvider) ShowModel(context.Context, string) (*llm.ModelDetails, error) {
	return &llm.ModelDetails{ContextLength: 1 << 20,
		Capabilities: llm.Capabilities{Known: true, Chat: true, Tools: true}}, nil
}

func (p *growthProvider) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	p.cpu, p.msgs = append(p.cpu, cpuTime()), append(p.msgs, len(req.Messages))
	p.heap = append(p.heap, readHeapAllocs())
	p.answer = growthStep
	if len(req.Messages) >= p.stop {
		p.answer = growthDone
	}
	return p.Provider.Chat(ctx, req)
}

// BenchmarkIterationGrowth is the cost of one iteration at a given length
// of history: turns through the session service, the real SQLite store and
// the real Ollama client (its transport answers in process), each running
// no-op tool calls until the request carries history+20 messages.
// cpu-ns/iteration is the CPU of the iterations whose request has from
// history to history+20 messages (about 10): the time from one request to
// the next. The target is the same figure at 20, 100 and 300.
func BenchmarkIterationGrowth(b *testing.B) {
	for _, stored := range []bool{false, true} {
		for _, hist := range []int{20, 100, 300} {
			b.Run(fmt.Sprintf("stored=%v/history=%d", stored, hist), func(b *testing.B) {
				prov, a := growthAgent(b, hist)
				if stored {
					benchGrowthStored(b, prov, a)
				} else {
					benchGrowthBus(b, prov, a, hist)
				}
				reportGrowth(b, prov, hist)
			})
		}
	}
}

func growthAgent(b *testing.B, hist int) (*growthProvider, *Agent) {
	prov := &growthProvider{stop: hist + 20}
	c, err := ollama.New("http://ollama.invalid", ollama.WithHTTPClient(&http.Client{Transport: growthTransport{&prov.answer}}))
	if err != nil {
		b.Fatal(err)
	}
	prov.Provider = c
	return prov, noopAgent(b, prov, hist+50)
}

// benchGrowthBus runs turns whose history is filled before they start
// (about history messages, not timed), events to a bus: the agent's own
// work without the store's.
func benchGrowthBus(b *testing.B, prov *growthProvider, a *Agent, hist int) {
	ws, err := workspace.New([]string{b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	bus := event.NewBus()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		conv := session.NewConversation()
		var seq int64
		apply := func(p event.Payload) {
			seq++
			conv.Apply(event.Event{Seq: seq, Data: p})
		}
		apply(event.UserMessage{Text: "call the tool"})
		for k := 0; 2*k+1 < hist-6; k++ { // a user message, then two per call
			id := fmt.Sprintf("call_%d", k)
			apply(event.AssistantMessage{Iteration: k + 1, Content: "Calling the tool.", ToolCalls: []llm.ToolCall{{ID: id, Name: "noop", Arguments: []byte(`{"i":1}`)}}})
			apply(event.ToolResult{ToolCallID: id, ToolName: "noop", Content: "ok"})
		}
		t := session.NewTurn("bench", 2, ws, session.PromptInput{Text: "go on"}, conv, busEmit(bus, 2, &seq))
		prov.cpu, prov.msgs, prov.heap = prov.cpu[:0], prov.msgs[:0], prov.heap[:0]
		b.StartTimer()
		res, err := a.RunTurn(ctx, t)
		if err != nil || res.Status != event.FinishDone {
			b.Fatalf("turn: %+v, %v", res, err)
		}
		prov.window(hist)
	}
}

// benchGrowthStored runs turns through the session service and the real
// store, each from an empty session up to history+20 messages.
func benchGrowthStored(b *testing.B, prov *growthProvider, a *Agent) {
	ctx := context.Background()
	svc, _ := storedService(b, a)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		sess, err := svc.Create(ctx, session.CreateOptions{Workspace: dir})
		if err != nil {
			b.Fatal(err)
		}
		prov.cpu, prov.msgs, prov.heap = prov.cpu[:0], prov.msgs[:0], prov.heap[:0]
		res, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: "call the tool"})
		if err != nil || res.Status != event.FinishDone {
			b.Fatalf("turn: %+v, %v", res, err)
		}
		prov.window(prov.stop - 20)
	}
}

// window adds the CPU of the last turn's iterations whose request carried
// at least hist messages.
func (p *growthProvider) window(hist int) {
	for k := 1; k < len(p.cpu); k++ {
		if p.msgs[k-1] >= hist {
			p.winCPU += p.cpu[k] - p.cpu[k-1]
			p.winHeap.bytes += p.heap[k].bytes - p.heap[k-1].bytes
			p.winHeap.objects += p.heap[k].objects - p.heap[k-1].objects
			p.winN++
		}
	}
}

func reportGrowth(b *testing.B, p *growthProvider, hist int) {
	if p.winN == 0 {
		b.Fatal("no iteration in the window")
	}
	b.ReportMetric(float64(p.winCPU)/float64(p.winN), "cpu-ns/iteration")
	b.ReportMetric(float64(p.winHeap.bytes)/float64(p.winN), "B/iteration")
	b.ReportMetric(float64(p.winHeap.objects)/float64(p.winN), "allocs/iteration")
	b.ReportMetric(float64(p.winN)/float64(b.N), "iterations/op")
}

// recordTransport answers like growthTransport and keeps every body.
type recordTransport struct {
	growthTransport
	bodies [][]byte
}

func (t *recordTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	t.bodies = append(t.bodies, b)
	r.Body = io.NopCloser(strings.NewReader(""))
	return t.growthTransport.RoundTrip(r)
}

// keptRecorder keeps a copy of every request the agent sends.
type keptRecorder struct {
	*growthProvider
	reqs []llm.ChatRequest
}

func (p *keptRecorder) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	cp := *req
	cp.Messages = slices.Clone(req.Messages)
	p.reqs = append(p.reqs, cp)
	return p.growthProvider.Chat(ctx, req)
}

// TestKeptRequestsOnWire: the requests of a long turn, which promise the
// encode cache the messages they kept (llm.ChatRequest.Kept), go on the
// wire byte for byte as the same requests encoded without a cache.
func TestKeptRequestsOnWire(t *testing.T) {
	gp := &growthProvider{stop: 60}
	rt := &recordTransport{growthTransport: growthTransport{&gp.answer}}
	c, err := ollama.New("http://ollama.invalid", ollama.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	gp.Provider = c
	prov := &keptRecorder{growthProvider: gp}
	reg, err := tools.NewRegistry(noopTool{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Deps{Provider: prov, Tools: reg, Config: Config{Model: "m", MaxIterations: 100}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	emit := func(_ context.Context, p event.Payload) (event.Event, error) { return event.Event{Data: p}, nil }
	turn := session.NewTurn("s", 1, ws, session.PromptInput{Text: "call the tool"}, nil, emit)
	if res, err := a.RunTurn(context.Background(), turn); err != nil || res.Status != event.FinishDone {
		t.Fatalf("turn: %+v, %v", res, err)
	}
	plainRT := &recordTransport{growthTransport: growthTransport{&gp.answer}}
	plain, err := ollama.New("http://ollama.invalid", ollama.WithHTTPClient(&http.Client{Transport: plainRT}))
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := range prov.reqs {
		req := prov.reqs[i]
		kept += req.Kept
		// A promise names the request sent before (its number from the
		// cache): one naming any other is never taken, and every message
		// is compared again, with the same bytes on the wire.
		if req.Kept > 0 && (i == 0 || req.KeptFrom == 0 || req.KeptFrom != prov.reqs[i-1].ID) {
			t.Fatalf("request %d (number %d) promises request %d's messages", i+1, req.ID, req.KeptFrom)
		}
		req.Cache, req.ID, req.KeptFrom, req.Kept = nil, 0, 0, 0
		s, err := plain.Chat(context.Background(), &req)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := s.Recv(); err == nil; _, err = s.Recv() {
		}
		if got, want := rt.bodies[i], plainRT.bodies[i]; !bytes.Equal(got, want) {
			t.Fatalf("request %d: sent\n%s\nwithout a cache\n%s", i+1, got, want)
		}
	}
	if len(prov.reqs) < 20 || kept == 0 {
		t.Fatalf("%d requests, %d messages kept in all: the promise was not exercised", len(prov.reqs), kept)
	}
}
