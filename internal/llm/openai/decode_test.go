package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
)

func chatStreamOf(body string) llm.Stream[llm.ChatChunk] {
	w := &wire.Client{BaseURL: "http://x", Dialect: Dialect}
	return newChatStream(context.Background(), w, &wire.Call{Method: "POST", Path: "/v1/chat/completions"}, io.NopCloser(bytes.NewReader([]byte(body))))
}

func TestToolCallAssemblyVariants(t *testing.T) {
	cases := []struct {
		name   string
		events []string
		want   []llm.ToolCall
	}{
		{name: "two parallel calls interleaved by index", events: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":"{\"y\""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		}, want: []llm.ToolCall{
			{ID: "a", Index: 0, Name: "f", Arguments: json.RawMessage(`{"x":1}`)},
			{ID: "b", Index: 1, Name: "g", Arguments: json.RawMessage(`{"y":2}`)},
		}},
		{name: "no index: a new id starts a new call", events: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{\"k\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"true}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		}, want: []llm.ToolCall{
			{ID: "a", Index: 0, Name: "f", Arguments: json.RawMessage(`{}`)},
			{ID: "b", Index: 1, Name: "g", Arguments: json.RawMessage(`{"k":true}`)},
		}},
		{name: "name repeated on every piece is not doubled", events: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"p\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":"1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		}, want: []llm.ToolCall{{ID: "a", Name: "read_file", Arguments: json.RawMessage(`{"p":1}`)}}},
		{name: "arguments sent as an object", events: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":{"z":[1]}}}]},"finish_reason":"tool_calls"}]}`,
		}, want: []llm.ToolCall{{ID: "a", Name: "f", Arguments: json.RawMessage(`{"z":[1]}`)}}},
		{name: "empty arguments mean none", events: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"list","arguments":""}}]}}]}`,
		}, want: []llm.ToolCall{{ID: "a", Name: "list", Arguments: json.RawMessage(`{}`)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body string
			for _, e := range tc.events {
				body += "data: " + e + "\n\n"
			}
			body += "data: [DONE]\n\n"
			chunks, err := wiretest.Drain(t, chatStreamOf(body))
			if err != nil {
				t.Fatal(err)
			}
			var got []llm.ToolCall
			for _, c := range chunks {
				got = append(got, c.ToolCalls...)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestReasoningAndTimings(t *testing.T) {
	body := `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"think"}}]}` + "\n\n" +
		`data: {"choices":[{"index":1,"delta":{"content":"other choice"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}],"timings":{"prompt_n":10,"prompt_ms":12.5,"predicted_n":3,"predicted_ms":40}}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}` + "\n\n" +
		"data: [DONE]\n\n"
	chunks, err := wiretest.Drain(t, chatStreamOf(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ChatChunk{
		{Thinking: "think"},
		{Content: "ok"},
		{Done: true, DoneReason: "stop", Metrics: &llm.Metrics{PromptTokens: 10, CompletionTokens: 3, PromptEvalDuration: 12500000, EvalDuration: 40000000}},
	}
	if d := cmp.Diff(want, chunks); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi \u003c\n"},"logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"r","reasoning":"s"},"finish_reason":"stop"}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"choices":[{"text":"compl","index":0,"logprobs":null,"finish_reason":"length"}]}`,
	`{"error":{"message":"x"}}`, `{"object":"error","message":"m"}`,
	`{"Choices":[]}`, `{"choices":[{"index":0,"delta":{"content":null}}]}`,
	`{"choices":[{"index":1.0}]}`, `{"choices":[],"choices":[]}`,
	`{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`, `[]`, `{`,
}

// FuzzFastChunk checks the fast decoder against encoding/json.
func FuzzFastChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		wiretest.SameAsJSON(t, data, fastChunk)
	})
}

// FuzzChatStream feeds arbitrary bodies to the SSE chat decoder: it must
// not panic, must end, and must fail only with *llm.Error values.
func FuzzChatStream(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte("data: " + s + "\n\ndata: [DONE]\n\n"))
	}
	f.Add([]byte("event: error\ndata: {\"message\":\"x\"}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := chatStreamOf(string(body))
		defer s.Close()
		for i := 0; ; i++ {
			c, err := s.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if llm.KindOf(err) == llm.KindUnknown {
					t.Fatalf("error %v is not an *llm.Error", err)
				}
				return
			}
			if c.Done {
				if _, err := s.Recv(); !errors.Is(err, io.EOF) {
					t.Fatalf("after Done: %v", err)
				}
				return
			}
			if i > len(body)+2 {
				t.Fatalf("more chunks (%d) than the body could hold", i)
			}
		}
	})
}

func TestParseError(t *testing.T) {
	cases := []struct {
		body string
		want wireErr
		ok   bool
	}{
		{`{"error":{"message":"m","type":"t","code":"c"}}`, wireErr{"m", "c", "t"}, true},
		{`{"error":{"code":400,"message":"m","type":"exceed_context_size_error"}}`, wireErr{"m", "400", "exceed_context_size_error"}, true},
		{`{"error":"plain"}`, wireErr{Message: "plain"}, true},
		{`{"object":"error","message":"m","type":"NotFoundError","code":404}`, wireErr{"m", "404", "NotFoundError"}, true},
		{`{"detail":"Not authenticated"}`, wireErr{Message: "Not authenticated"}, true},
		{`{"error":null}`, wireErr{}, false},
		{`{"other":1}`, wireErr{}, false},
		{`<html>`, wireErr{}, false},
	}
	for _, tc := range cases {
		se, ok := parseError([]byte(tc.body))
		got := wireErr{se.Message, se.Code, se.Type}
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseError(%s) = %+v %v, want %+v %v", tc.body, got, ok, tc.want, tc.ok)
		}
	}
}

type wireErr struct{ Message, Code, Type string }
