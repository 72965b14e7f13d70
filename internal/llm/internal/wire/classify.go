package wire

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// ServerError is what a dialect found in an error response body.
type ServerError struct {
	// Message is the server's text.
	Message string
	// Code and Type are the OpenAI error object's fields, when present
	// ("model_not_found", "context_length_exceeded",
	// "exceed_context_size_error").
	Code string
	Type string
}

// StatusKind classifies an HTTP error response. The order matters: a
// context overflow is reported as such whatever the status (servers use 400,
// 413 and 500 for it), because retrying the same prompt cannot succeed.
func StatusKind(status int, se ServerError) llm.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.KindAuth
	case MentionsContextOverflow(se):
		return llm.KindContextOverflow
	case status >= 400 && status < 500 && MentionsModelNotFound(se):
		return llm.KindModelNotFound
	case status >= 500:
		return llm.KindServer
	default:
		return llm.KindBadRequest
	}
}

// StreamKind classifies an error object that arrived inside a stream, where
// there is no status code to go by.
func StreamKind(se ServerError) llm.ErrorKind {
	switch {
	case MentionsContextOverflow(se):
		return llm.KindContextOverflow
	case MentionsModelNotFound(se):
		return llm.KindModelNotFound
	default:
		return llm.KindServer
	}
}

// MentionsContextOverflow reports whether the error says the input does not
// fit the context window. The phrasings are those of OpenAI and vLLM ("This
// model's maximum context length is 8192 tokens"), llama.cpp ("the request
// exceeds the available context size"), Ollama ("input length exceeds the
// context length", and with "shift": false "the prompt is longer than the
// context length currently available to the model") and LM Studio ("...
// when context the overflows").
func MentionsContextOverflow(se ServerError) bool {
	if se.Code == "context_length_exceeded" || se.Type == "exceed_context_size_error" {
		return true
	}
	m := strings.ToLower(se.Message)
	if !strings.Contains(m, "context") {
		return false
	}
	for _, w := range []string{"exceed", "maximum context length", "overflow", "too long", "longer than the context"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// MentionsModelNotFound reports whether the error says the model is not
// installed or not served: Ollama's `model "x" not found, try pulling it
// first`, OpenAI's and vLLM's "The model `x` does not exist". A bare "404
// page not found" (an endpoint the server lacks) does not count.
func MentionsModelNotFound(se ServerError) bool {
	if se.Code == "model_not_found" {
		return true
	}
	m := strings.ToLower(se.Message)
	if !strings.Contains(m, "model") {
		return false
	}
	return strings.Contains(m, "not found") || strings.Contains(m, "does not exist") || strings.Contains(m, "no such model")
}

// PlainMessage makes a readable message out of an error body that is not
// the dialect's JSON (a proxy's HTML page, a plain-text 404).
func PlainMessage(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	return llm.QuoteLine([]byte(s))
}

// NestedError reads an error text that is itself a JSON error body — what
// Ollama sends when it passes on the llama-server runner's error
// ({"error":"{\"error\":{\"code\":400,\"message\":…,\"type\":…}}"}).
// It reports false for any other text.
func NestedError(text string) (ServerError, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return ServerError{}, false
	}
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal([]byte(t), &body) != nil {
		return ServerError{}, false
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil && s != "" {
		return ServerError{Message: s}, true
	}
	var o struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body.Error, &o) == nil && o.Message != "" {
		return ServerError{Message: o.Message, Type: o.Type, Code: codeString(o.Code)}, true
	}
	if body.Message != "" {
		return ServerError{Message: body.Message, Type: body.Type}, true
	}
	return ServerError{}, false
}

// codeString renders an error code that may be a string or a number.
func codeString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
