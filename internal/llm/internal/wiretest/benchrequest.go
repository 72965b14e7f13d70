package wiretest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

// BenchConversation is an agent's conversation of n messages: the system
// prompt, the task, then assistant tool calls and their results (source
// text of 1–2 KB), as a coding session's history looks.
func BenchConversation(n int) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: strings.Repeat("You are olly, a coding agent. Use the tools; never guess <paths> & names.\n", 60)},
		{Role: llm.RoleUser, Content: "Fix the failing test in internal/x and run the tests."}}
	for i := 0; len(msgs) < n; i++ {
		msgs = append(msgs, benchStep(i)...)
	}
	return msgs[:n]
}

// benchStep is one iteration's two messages: a call and its result.
func benchStep(i int) []llm.Message {
	id := fmt.Sprintf("call_%d", i)
	code := strings.Repeat(fmt.Sprintf("func f%d(x int) int {\n\tif x < 0 && x > -10 {\n\t\treturn \"<\" + x\n\t}\n\treturn x * 2 // héllo\n}\n", i), 12+i%10)
	return []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"internal/x/f%d.go"}`, i))}}},
		{Role: llm.RoleTool, ToolName: "read_file", ToolCallID: id, Content: code},
	}
}

// BenchTools are tool definitions of a realistic size.
func BenchTools() []llm.Tool {
	var ts []llm.Tool
	for i := range 12 {
		ts = append(ts, llm.Tool{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("Does a thing with a file. ", 8),
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file's path, relative to the workspace."},"limit":{"type":"integer"}},"required":["path"]}`)})
	}
	return ts
}

// BenchIterations runs one agent iteration's request per op at a
// conversation of n messages: every op the last two messages are another
// step's (other strings, as a new iteration's call and result), the rest
// are the same messages again. send gets the request to send.
func BenchIterations(b *testing.B, n int, cached bool, send func(*llm.ChatRequest)) {
	base := BenchConversation(n)
	req := &llm.ChatRequest{Model: Model, Tools: BenchTools(), Truncate: llm.Ptr(false),
		Options: llm.Options{NumCtx: llm.Ptr(32768), Temperature: llm.Ptr(0.2)}, Think: &llm.Think{Enabled: true}}
	if cached {
		req.Cache = new(llm.EncodeCache)
	}
	// The requests are built beforehand: what is measured is the send.
	reqs := make([]llm.ChatRequest, 16)
	for i := range reqs {
		reqs[i] = *req
		reqs[i].Messages = append(append(make([]llm.Message, 0, n), base[:n-2]...), benchStep(1000+i)...)
	}
	b.ReportAllocs()
	cpu0 := cpuNow()
	i := 0
	for b.Loop() {
		i++
		// Numbered, each promising the history before the last two
		// messages kept from the one before, as the agent's requests do.
		r := &reqs[i%len(reqs)]
		r.ID, r.KeptFrom, r.Kept = uint64(i), uint64(i-1), n-3
		send(r)
	}
	b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchRoundTrip is BenchIterations over loopback HTTP: the server reads
// the request and answers with response (a tool call and the final
// chunk), which the client decodes. Allocations and CPU include the
// server's side, the same with and without the cache.
func BenchRoundTrip(b *testing.B, contentType string, response []byte, newClient func(string) (llm.Provider, error), n int, cached bool) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(response)
	}))
	b.Cleanup(srv.Close)
	c, err := newClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	BenchIterations(b, n, cached, func(req *llm.ChatRequest) {
		chatOneCall(b, c, req)
	})
}

// chatOneCall sends req through c and reads the reply to its end; the
// reply must decode to exactly one tool call.
func chatOneCall(b *testing.B, c llm.Provider, req *llm.ChatRequest) {
	s, err := c.Chat(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	calls := 0
	for {
		ch, err := s.Recv()
		if err != nil {
			break
		}
		calls += len(ch.ToolCalls)
	}
	_ = s.Close()
	if calls != 1 {
		b.Fatalf("%d tool calls decoded", calls)
	}
}
