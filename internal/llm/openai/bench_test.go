package openai_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/openai"
)

type benchDelta map[string]any

// sseStream builds a chat.completion.chunk stream of about size bytes, one
// event per token, as OpenAI frames it (usage: null on each chunk when
// usage was asked for).
func sseStream(size int, delta func(i int) benchDelta) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		data, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-8a7b6c", "object": "chat.completion.chunk", "created": 1735689600, "model": "qwen3:8b",
			"system_fingerprint": "fp_44709d6fcb",
			"choices":            []map[string]any{{"index": 0, "delta": delta(i), "logprobs": nil, "finish_reason": nil}},
			"usage":              nil,
		})
		b.WriteString("data: ")
		b.Write(data)
		b.WriteString("\n\n")
	}
	b.WriteString(`data: {"id":"chatcmpl-8a7b6c","object":"chat.completion.chunk","created":1735689600,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-8a7b6c","object":"chat.completion.chunk","created":1735689600,"model":"qwen3:8b","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func benchSSE(b *testing.B, body []byte) {
	wiretest.BenchChat(b, "text/event-stream", body, func(url string) (llm.Provider, error) { return openai.New(url) })
}

// BenchmarkChatStreamSSE decodes a 50 MB token-by-token SSE stream through
// the client over real HTTP.
func BenchmarkChatStreamSSE(b *testing.B) {
	tokens := wiretest.Tokens()
	benchSSE(b, sseStream(50<<20, func(i int) benchDelta { return benchDelta{"content": tokens[i%len(tokens)]} }))
}

// BenchmarkChatStreamSSEToolCall decodes a 50 MB stream of argument
// fragments of one tool call (a file being written), assembled into one
// call.
func BenchmarkChatStreamSSEToolCall(b *testing.B) {
	tokens := wiretest.Tokens()
	benchSSE(b, sseStream(50<<20, func(i int) benchDelta {
		call := map[string]any{"index": 0, "function": map[string]string{"arguments": tokens[i%len(tokens)]}}
		if i == 0 {
			call = map[string]any{"index": 0, "id": "call_1", "type": "function", "function": map[string]string{"name": "write_file", "arguments": `{"content":"`}}
		}
		return benchDelta{"tool_calls": []any{call}}
	}))
}

// stepEvents is an agent step's answer: a tool call in one event, the
// finish reason, the usage.
const stepEvents = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_9","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"internal/x/f.go\"}"}}]},"finish_reason":null}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":20,"total_tokens":920}}

data: [DONE]

`

// BenchmarkRequest is one agent iteration's request and answer over
// loopback HTTP at a conversation of 20 and 200 messages, the body encoded
// whole (plain) or from the conversation's cache.
func BenchmarkRequest(b *testing.B) {
	for _, n := range []int{20, 200} {
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("messages=%d/cached=%v", n, cached), func(b *testing.B) {
				wiretest.BenchRoundTrip(b, "text/event-stream", []byte(stepEvents), func(url string) (llm.Provider, error) { return openai.New(url) }, n, cached)
			})
		}
	}
}

// BenchmarkRoundTrip is BenchmarkRequest against a server in another
// process, the events written one line at a time: the client's CPU alone
// per round trip, its context switches and allocations.
func BenchmarkRoundTrip(b *testing.B) {
	for _, n := range []int{20, 200} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			wiretest.BenchRoundTripProc(b, "text/event-stream", []byte(stepEvents), func(url string) (llm.Provider, error) { return openai.New(url) }, n)
		})
	}
}
