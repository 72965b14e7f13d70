package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrorKind classifies a failure talking to a model server.
type ErrorKind int

// The kinds of failure. Callers branch on them with errors.Is against the
// sentinel values below (errors.Is(err, llm.ErrConnection)).
const (
	KindUnknown         ErrorKind = iota
	KindConnection                // cannot reach the server, or it dropped the connection
	KindAuth                      // 401/403: token missing or wrong
	KindModelNotFound             // the model is not installed
	KindServer                    // 5xx, or an error object from the server
	KindBadRequest                // 4xx other than the above: the request was refused
	KindMalformedStream           // a response line or event that is not valid
	KindContextOverflow           // the prompt does not fit the model's context window
	KindUnsupported               // the dialect has no such endpoint
	KindCanceled                  // the caller's context ended
	KindTimeout                   // the server sent nothing for longer than a timeout allows
)

var kindNames = map[ErrorKind]string{
	KindUnknown:         "unknown",
	KindConnection:      "connection",
	KindAuth:            "auth",
	KindModelNotFound:   "model_not_found",
	KindServer:          "server",
	KindBadRequest:      "bad_request",
	KindMalformedStream: "malformed_stream",
	KindContextOverflow: "context_overflow",
	KindUnsupported:     "unsupported",
	KindCanceled:        "canceled",
	KindTimeout:         "timeout",
}

// String returns the kind's snake_case name, as used on the wire.
func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Sentinels for errors.Is. An *Error matches the sentinel of its kind.
var (
	ErrConnection      = &Error{Kind: KindConnection}
	ErrAuth            = &Error{Kind: KindAuth}
	ErrModelNotFound   = &Error{Kind: KindModelNotFound}
	ErrServer          = &Error{Kind: KindServer}
	ErrBadRequest      = &Error{Kind: KindBadRequest}
	ErrMalformedStream = &Error{Kind: KindMalformedStream}
	ErrContextOverflow = &Error{Kind: KindContextOverflow}
	ErrUnsupported     = &Error{Kind: KindUnsupported}
	ErrCanceled        = &Error{Kind: KindCanceled}
	ErrTimeout         = &Error{Kind: KindTimeout}
)

// ErrEndedEarly is the cause of a stream that ended, with HTTP 200, before
// its final chunk (Ollama: no line with done; OpenAI: neither a finish
// reason nor [DONE]). Ollama does this when it stops a model that repeats
// itself, so what arrived before is a usable, if unfinished, answer. The
// error's kind is KindServer: the server was reached.
var ErrEndedEarly = errors.New("stream ended early, before the final chunk")

// TimeoutError is the cause of a KindTimeout error: the server sent
// nothing for Wait (Setting names the timeout that ran out).
type TimeoutError struct {
	Wait    time.Duration
	Setting string
	// Headers: no response had arrived yet (else: a stream went idle).
	Headers bool
}

func (e *TimeoutError) Error() string {
	secs := int(e.Wait.Round(time.Second) / time.Second)
	what := "sent nothing"
	if !e.Headers {
		what = "sent nothing more"
	}
	return fmt.Sprintf("the model server %s for %d s (%s)", what, secs, e.Setting)
}

// Error is a failure talking to a model server. Its message says what went
// wrong and what to do about it.
type Error struct {
	Kind ErrorKind
	// Op is the request, e.g. "POST /api/chat".
	Op string
	// BaseURL is the server address.
	BaseURL string
	// Model is the model the request was for, if any.
	Model string
	// StatusCode is the HTTP status, or 0 when no response arrived.
	StatusCode int
	// Message is the server's own error text, if it sent one.
	Message string
	// Line quotes the offending stream line for KindMalformedStream
	// (shortened to a readable length).
	Line string
	// Dialect is "ollama" or "openai"; it selects the advice given.
	Dialect string
	// Err is the underlying cause.
	Err error
}

// Is reports whether target is the sentinel of e's kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	// Only sentinels (no Op, no cause) match by kind; two concrete errors
	// are equal only if they are the same value.
	return t.Op == "" && t.Err == nil && t.Message == "" && t.Kind == e.Kind
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Error renders the failure with its fix.
func (e *Error) Error() string {
	var b strings.Builder
	server := e.serverName()
	switch e.Kind {
	case KindConnection:
		fmt.Fprintf(&b, "cannot reach %s at %s", server, e.BaseURL)
		if e.Dialect == "ollama" {
			b.WriteString(" — is `ollama serve` running?")
		} else {
			b.WriteString(" — is the server running, and is baseUrl right?")
		}
	case KindAuth:
		fmt.Fprintf(&b, "%s at %s refused the credentials (HTTP %d) — set the token with `olly config set apiKey <token>` or OLLY_API_KEY", server, e.BaseURL, e.StatusCode)
	case KindModelNotFound:
		if e.Dialect == "ollama" {
			fmt.Fprintf(&b, "model %q is not installed — run `ollama pull %s`", e.Model, e.Model)
		} else {
			fmt.Fprintf(&b, "model %q is not served by %s — check `olly models` for the names it offers", e.Model, e.BaseURL)
		}
	case KindServer:
		fmt.Fprintf(&b, "%s at %s failed", server, e.BaseURL)
		if e.StatusCode != 0 {
			fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
		}
	case KindBadRequest:
		fmt.Fprintf(&b, "%s at %s refused the request (HTTP %d)", server, e.BaseURL, e.StatusCode)
	case KindMalformedStream:
		fmt.Fprintf(&b, "%s at %s sent a response olly cannot read", server, e.BaseURL)
	case KindContextOverflow:
		fmt.Fprintf(&b, "the conversation does not fit the context window of %q", e.Model)
	case KindUnsupported:
		fmt.Fprintf(&b, "%s servers do not offer this", server)
	case KindCanceled:
		b.WriteString("request canceled")
	case KindTimeout:
		fmt.Fprintf(&b, "%s at %s stopped answering", server, e.BaseURL)
	default:
		fmt.Fprintf(&b, "request to %s failed", server)
	}
	if e.Op != "" {
		fmt.Fprintf(&b, " [%s]", e.Op)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Line != "" {
		fmt.Fprintf(&b, ": offending line: %q", e.Line)
	}
	if e.Err != nil && e.Message == "" {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Kind == KindTimeout {
		b.WriteString(" — a model that is still loading can take minutes; raise the timeout with `olly config set` if this server is slow")
	}
	return b.String()
}

func (e *Error) serverName() string {
	if e.Dialect == "ollama" {
		return "Ollama"
	}
	return "the model server"
}

// KindOf returns the kind of err, or KindUnknown if err is not an *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindUnknown
}

// QuoteLine shortens a stream line for an error message, keeping its start
// and end so the reader sees where it went wrong.
func QuoteLine(line []byte) string {
	const max = 200
	if len(line) <= max {
		return string(line)
	}
	return string(line[:max/2]) + fmt.Sprintf(" …(%d bytes)… ", len(line)-max) + string(line[len(line)-max/2:])
}

// ToolsUnsupported reports whether err is a server's refusal of a request
// because the model cannot take tools (Ollama, natively or behind /v1:
// "registry.ollama.ai/library/m:latest does not support tools"). The
// caller may send the request again without tools, with the tool calls
// written as text.
func ToolsUnsupported(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindBadRequest {
		return false
	}
	return strings.Contains(strings.ToLower(e.Message), "does not support tools")
}
