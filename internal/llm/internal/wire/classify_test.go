package wire

import (
	"encoding/json"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

func TestStatusKind(t *testing.T) {
	cases := []struct {
		name   string
		status int
		se     ServerError
		want   llm.ErrorKind
	}{
		{"401", 401, ServerError{Message: "model not found"}, llm.KindAuth},
		{"403", 403, ServerError{}, llm.KindAuth},
		{"ollama model not found", 404, ServerError{Message: `model "x" not found, try pulling it first`}, llm.KindModelNotFound},
		{"ollama show not found", 404, ServerError{Message: `model 'x' not found`}, llm.KindModelNotFound},
		{"openai model code", 404, ServerError{Message: "nope", Code: "model_not_found"}, llm.KindModelNotFound},
		{"vllm does not exist", 404, ServerError{Message: "The model `x` does not exist."}, llm.KindModelNotFound},
		{"missing endpoint", 404, ServerError{Message: "404 page not found"}, llm.KindBadRequest},
		{"overflow beats 500", 500, ServerError{Message: "input length exceeds the context length"}, llm.KindContextOverflow},
		{"openai overflow code", 400, ServerError{Code: "context_length_exceeded"}, llm.KindContextOverflow},
		{"llama.cpp overflow type", 400, ServerError{Type: "exceed_context_size_error"}, llm.KindContextOverflow},
		{"lm studio overflow", 400, ServerError{Message: "Trying to keep the first 5000 tokens when context the overflows."}, llm.KindContextOverflow},
		{"5xx", 503, ServerError{Message: "busy"}, llm.KindServer},
		{"model not found in a 500 is a server error", 500, ServerError{Message: "model not found"}, llm.KindServer},
		{"429", 429, ServerError{}, llm.KindBadRequest},
		{"400 mentioning context without overflow", 400, ServerError{Message: "invalid context parameter"}, llm.KindBadRequest},
	}
	for _, tc := range cases {
		if got := StatusKind(tc.status, tc.se); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if StreamKind(ServerError{Message: "boom"}) != llm.KindServer || StreamKind(ServerError{Message: `model "m" not found`}) != llm.KindModelNotFound {
		t.Error("StreamKind")
	}
}

func TestSplitArguments(t *testing.T) {
	cases := []struct{ in, args, raw string }{
		{`{"a":1}`, `{"a":1}`, ""},
		{` {"a":1} `, `{"a":1}`, ""},
		{``, `{}`, ""},
		{`null`, `{}`, ""},
		{`{"a":`, "", `{"a":`},
		{`[1]`, "", `[1]`},
		{`"s"`, "", `"s"`},
	}
	for _, tc := range cases {
		args, raw := SplitArguments([]byte(tc.in))
		if string(args) != tc.args || raw != tc.raw || (tc.args == "" && args != nil) {
			t.Errorf("SplitArguments(%q) = %q %q, want %q %q", tc.in, args, raw, tc.args, tc.raw)
		}
	}
	if string(ObjectOrEmpty(json.RawMessage(`[1]`))) != `{}` || string(ObjectOrEmpty(json.RawMessage(`{"x":1}`))) != `{"x":1}` {
		t.Error("ObjectOrEmpty")
	}
	if string(NormalizeFormat(json.RawMessage(`json`))) != `"json"` || NormalizeFormat(nil) != nil {
		t.Error("NormalizeFormat")
	}
}

func TestNestedError(t *testing.T) {
	for _, tc := range []struct {
		in, msg, typ string
		ok           bool
	}{
		{`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
			"the request exceeds the available context size, try increasing it", "exceed_context_size_error", true},
		{`{"error":"boom"}`, "boom", "", true},
		{`{"message":"m","type":"t"}`, "m", "t", true},
		{`model 'x' not found`, "", "", false},
		{`{"error":{}}`, "", "", false},
		{`{broken`, "", "", false},
	} {
		se, ok := NestedError(tc.in)
		if ok != tc.ok || se.Message != tc.msg || se.Type != tc.typ {
			t.Errorf("NestedError(%q) = %+v, %v", tc.in, se, ok)
		}
	}
}

func FuzzNestedError(f *testing.F) {
	f.Add(`{"error":{"code":400,"message":"m","type":"exceed_context_size_error"}}`)
	f.Add(`{"error":"text"}`)
	f.Add(`plain text`)
	f.Fuzz(func(t *testing.T, s string) {
		se, ok := NestedError(s)
		if ok && se.Message == "" {
			t.Errorf("NestedError(%q) reported an error without a message", s)
		}
	})
}
