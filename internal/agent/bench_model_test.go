package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

// modelStep is the answer of each request in BenchmarkModelPath: a tool
// call and the final chunk, as Ollama streams them.
const modelStep = `{"model":"m","created_at":"2025-06-01T12:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"index":0,"name":"run_subagent","arguments":{"task":"read the next part","title":"Read"}}}]},"done":false}
{"model":"m","created_at":"2025-06-01T12:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":1,"load_duration":1,"prompt_eval_count":900,"prompt_eval_duration":1,"eval_count":20,"eval_duration":1}
`

// BenchmarkModelPath is one iteration's model round trip as a run makes it
// (run.stream): the request prepared from a conversation of 20 or 200
// messages, encoded, sent over loopback HTTP with the real Ollama client,
// and the streamed tool call read back. The server reads the body and
// answers at once; its CPU is in the figure. cached=false sends without
// the run's encode cache (every message encoded every iteration, as before
// it). The conversation does not grow between ops: a real iteration also
// encodes its two new messages (BenchmarkChatBody in internal/llm/ollama).
func BenchmarkModelPath(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = io.WriteString(w, modelStep)
	}))
	b.Cleanup(srv.Close)
	for _, n := range []int{20, 200} {
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("messages=%d/cached=%v", n, cached), func(b *testing.B) {
				r := historyRun(b, event.ModeAgent, n)
				c, err := ollama.New(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				r.set.provider = c
				if !cached {
					r.req.encoded = nil
				}
				ctx := context.Background()
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if res := r.stream(ctx); res.err != nil || len(res.nativeCalls) != 1 {
						b.Fatalf("err %v, %d calls", res.err, len(res.nativeCalls))
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
