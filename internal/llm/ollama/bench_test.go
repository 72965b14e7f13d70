package ollama_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

// tokenStream builds an /api/chat body of about size bytes as Ollama
// writes it: one line per token, with the model name and timestamp
// repeated on each, Go's escaping of <, > and &, then the final chunk.
func tokenStream(size int) []byte {
	tokens := wiretest.Tokens()
	type msg struct {
		Role     string `json:"role"`
		Content  string `json:"content"`
		Thinking string `json:"thinking,omitempty"`
	}
	type line struct {
		Model     string `json:"model"`
		CreatedAt string `json:"created_at"`
		Message   msg    `json:"message"`
		Done      bool   `json:"done"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := 0; b.Len() < size; i++ {
		m := msg{Role: "assistant", Content: tokens[i%len(tokens)]}
		if i < 200 {
			m.Content, m.Thinking = "", tokens[i%len(tokens)]
		}
		_ = enc.Encode(line{Model: "qwen3:8b", CreatedAt: "2025-06-01T12:00:00.123456789Z", Message: m})
	}
	b.WriteString(`{"model":"qwen3:8b","created_at":"2025-06-01T12:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":1,"load_duration":1,"prompt_eval_count":1,"prompt_eval_duration":1,"eval_count":1,"eval_duration":1}` + "\n")
	return b.Bytes()
}

// toolCallStream is one tool call writing a file of about size bytes.
func toolCallStream(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"qwen3:8b","created_at":"2025-06-01T12:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"write_file","arguments":{"path":"big.go","content":"`)
	for b.Len() < size {
		b.WriteString(`\tfmt.Println(\"line\") // \u003cok\u003e\n`)
	}
	b.WriteString(`"}}}]},"done":false}` + "\n")
	b.WriteString(`{"model":"qwen3:8b","created_at":"2025-06-01T12:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true}` + "\n")
	return []byte(b.String())
}

func benchChat(b *testing.B, body []byte) {
	wiretest.BenchChat(b, "application/x-ndjson", body, func(url string) (llm.Provider, error) { return ollama.New(url) })
}

// BenchmarkChatStream decodes a 50 MB token-by-token chat stream through
// the client over real HTTP.
func BenchmarkChatStream(b *testing.B) { benchChat(b, tokenStream(50<<20)) }

// BenchmarkChatStreamToolCall decodes one 50 MB tool-call line.
func BenchmarkChatStreamToolCall(b *testing.B) { benchChat(b, toolCallStream(50<<20)) }

// stepResponse is an agent step's answer: a tool call, then the final
// chunk with the counts.
const stepResponse = `{"model":"qwen3:8b","created_at":"2025-06-01T12:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_9","function":{"index":0,"name":"read_file","arguments":{"path":"internal/x/f.go"}}}]},"done":false}
{"model":"qwen3:8b","created_at":"2025-06-01T12:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":1,"load_duration":1,"prompt_eval_count":1,"prompt_eval_duration":1,"eval_count":1,"eval_duration":1}
`

// BenchmarkRequest is one agent iteration's request and answer over
// loopback HTTP at a conversation of 20 and 200 messages, the body encoded
// whole (plain) or from the conversation's cache.
func BenchmarkRequest(b *testing.B) {
	for _, n := range []int{20, 200} {
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("messages=%d/cached=%v", n, cached), func(b *testing.B) {
				wiretest.BenchRoundTrip(b, "application/x-ndjson", []byte(stepResponse), func(url string) (llm.Provider, error) { return ollama.New(url) }, n, cached)
			})
		}
	}
}

// BenchmarkRoundTrip is one agent iteration's request and answer against a
// server in another process, the reply written a line at a time as Ollama
// does: the client's CPU alone per round trip (cpu-ns/op), its threads'
// voluntary context switches and allocations.
func BenchmarkRoundTrip(b *testing.B) {
	for _, n := range []int{20, 200} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			wiretest.BenchRoundTripProc(b, "application/x-ndjson", []byte(stepResponse), func(url string) (llm.Provider, error) { return ollama.New(url) }, n)
		})
	}
}
