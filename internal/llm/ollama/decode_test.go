package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
)

func TestContextLengthFromModelInfo(t *testing.T) {
	cases := []struct {
		name string
		info string
		want int
	}{
		{name: "architecture key", info: `{"general.architecture":"qwen3","qwen3.context_length":40960}`, want: 40960},
		{name: "architecture key wins over others", info: `{"general.architecture":"mllama","aaa.context_length":1,"mllama.context_length":131072}`, want: 131072},
		{name: "any key ending in .context_length", info: `{"gemma2.context_length":8192}`, want: 8192},
		{name: "first in sorted order when the architecture has none", info: `{"general.architecture":"x","b.context_length":2,"a.context_length":1}`, want: 1},
		{name: "non-numbers ignored", info: `{"llama.context_length":"big","x.context_length":-5}`, want: 0},
		{name: "none", info: `{"general.architecture":"bert"}`, want: 0},
		{name: "no model_info", info: `null`, want: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var info map[string]any
			if err := json.Unmarshal([]byte(tc.info), &info); err != nil {
				t.Fatal(err)
			}
			if got := contextLength(info); got != tc.want {
				t.Errorf("contextLength = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestCapabilitiesFromAnOldServer(t *testing.T) {
	// Servers before capabilities existed send none: not Known, chat
	// assumed.
	if got := capabilities(nil); got.Known || !got.Chat || got.Tools {
		t.Errorf("capabilities(nil) = %+v", got)
	}
}

func TestToolCallArgumentShapes(t *testing.T) {
	cases := []struct {
		name, args string
		want       string // Arguments
		raw        string // RawArguments
	}{
		{name: "object", args: `{"a":1}`, want: `{"a":1}`},
		{name: "string holding an object", args: `"{\"a\":1}"`, want: `{"a":1}`},
		{name: "string holding text", args: `"not json"`, raw: `not json`},
		{name: "array", args: `[1,2]`, raw: `[1,2]`},
		{name: "null means no arguments", args: `null`, want: `{}`},
		{name: "absent means no arguments", args: ``, want: `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := neutralCall(toolCall{Function: toolFunction{Name: "f", Arguments: json.RawMessage(tc.args)}})
			if string(got.Arguments) != tc.want || got.RawArguments != tc.raw {
				t.Errorf("Arguments %q RawArguments %q, want %q %q", got.Arguments, got.RawArguments, tc.want, tc.raw)
			}
		})
	}
}

// streamOf decodes body as an /api/chat response without HTTP.
func streamOf(body []byte) llm.Stream[llm.ChatChunk] {
	w := &wire.Client{BaseURL: "http://x", Dialect: Dialect}
	return newChatStream(context.Background(), w, &wire.Call{Method: "POST", Path: "/api/chat"}, io.NopCloser(bytes.NewReader(body)))
}

var chatSeeds = []string{
	`{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"Hi \u003c\n\"x\""},"done":false}`,
	`{"message":{"role":"assistant","content":"","thinking":"hm"},"done":false}`,
	`{"message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"index":0,"name":"f","arguments":{"a":[1,{"b":null}]}}}]},"done":false}`,
	`{"message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":6,"load_duration":1,"prompt_eval_count":3,"prompt_eval_duration":2,"eval_count":4,"eval_duration":3}`,
	`{"error":"boom"}`,
	`{"Message":{"Content":"case"},"DONE":true}`,
	`{"message":{"content":"\ud83d\ude00 surrogate"},"done":false}`,
	`{"message":{"content":"a"},"message":{"thinking":"b"},"done":false,"done":true}`,
	`{"message":null,"done":null}`,
	`{"done":false,"eval_count":1e3}`,
	`{"message":{"content":"\xff invalid utf8"}}`,
	`[1]`, `"s"`, `{"message":`, `{} x`, ``,
}

// FuzzFastChat checks the fast decoder against encoding/json: whenever the
// fast path accepts a line, encoding/json must accept it too and produce
// exactly the same chunk.
func FuzzFastChat(f *testing.F) {
	for _, s := range chatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		wiretest.SameAsJSON(t, line, fastChat)
		wiretest.SameAsJSON(t, line, fastGenerate)
	})
}

// FuzzChatStream feeds arbitrary bodies to the stream decoder. It must not
// panic, and must account for every line: each non-blank line up to the
// final chunk yields exactly one chunk or ends the stream with an error of
// the right kind; input without a final chunk ends with a connection error.
func FuzzChatStream(f *testing.F) {
	for _, s := range chatSeeds {
		f.Add([]byte(s + "\n" + chatSeeds[3] + "\n"))
	}
	f.Add([]byte(chatSeeds[0] + "\r\n\n  \n" + chatSeeds[3]))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := streamOf(body)
		defer s.Close()
		for _, line := range bytes.Split(body, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			chunk, err := s.Recv()
			var want chatChunk
			decErr := json.Unmarshal(line, &want)
			isObj := bytes.HasPrefix(bytes.TrimLeft(line, " \t\r"), []byte("{"))
			switch {
			case decErr != nil || !isObj:
				if llm.KindOf(err) != llm.KindMalformedStream {
					t.Fatalf("line %q: got %+v, %v; want a malformed-stream error", line, chunk, err)
				}
				return
			case want.Error != nil:
				if k := llm.KindOf(err); k != llm.KindServer && k != llm.KindContextOverflow && k != llm.KindModelNotFound {
					t.Fatalf("error line %q: got %v", line, err)
				}
				return
			case err != nil:
				t.Fatalf("valid line %q: %v", line, err)
			case chunk.Content != want.Message.Content || chunk.Thinking != want.Message.Thinking || chunk.Done != want.Done:
				t.Fatalf("line %q decoded as %+v", line, chunk)
			}
			if want.Done {
				if _, err := s.Recv(); !errors.Is(err, io.EOF) {
					t.Fatalf("after the final chunk: %v, want io.EOF", err)
				}
				return
			}
		}
		if _, err := s.Recv(); llm.KindOf(err) != llm.KindConnection {
			t.Fatalf("body without a final chunk ended with %v, want a connection error", err)
		}
	})
}
