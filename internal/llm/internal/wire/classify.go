package wire

import (
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
// context length") and LM Studio ("... when context the overflows").
func MentionsContextOverflow(se ServerError) bool {
	if se.Code == "context_length_exceeded" || se.Type == "exceed_context_size_error" {
		return true
	}
	m := strings.ToLower(se.Message)
	if !strings.Contains(m, "context") {
		return false
	}
	for _, w := range []string{"exceed", "maximum context length", "overflow", "too long"} {
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
