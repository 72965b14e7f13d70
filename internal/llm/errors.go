package llm

import (
	"errors"
	"fmt"
	"strings"
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
)

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
