// Package openai is olly's client for OpenAI-compatible servers (llama.cpp,
// vLLM, LM Studio, Ollama's /v1, hosted APIs). It implements llm.Provider:
// chat over /v1/chat/completions and completion over /v1/completions, both
// streamed as server-sent events, /v1/models and /v1/embeddings. The
// dialect has no running-model list and no version endpoint; those methods
// return an *llm.Error of kind KindUnsupported.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

// Dialect is the name this client reports for its wire format.
const Dialect = "openai"

// DefaultUserAgent is sent unless WithUserAgent says otherwise.
const DefaultUserAgent = wire.DefaultUserAgent

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use.
type Client struct {
	w wire.Client

	// mu guards the model list cache and the Ollama probe (models.go).
	mu     sync.Mutex
	list   []modelEntry
	listAt time.Time
	probed bool
	native *ollama.Client

	// psMu guards the running-model list of the Ollama behind /v1
	// (models.go), held while it is asked so concurrent callers share
	// one request.
	psMu    sync.Mutex
	running []llm.RunningModel
	psAt    time.Time
}

var _ llm.Provider = (*Client)(nil)

// Option configures a Client.
type Option func(*wire.Settings)

// WithHTTPClient sets the HTTP client. The default has no overall timeout,
// because a streamed answer may legitimately take many minutes; cancel the
// context instead.
func WithHTTPClient(hc *http.Client) Option { return func(s *wire.Settings) { s.HTTP = hc } }

// WithAPIKey sends "Authorization: Bearer key" on every request.
func WithAPIKey(key string) Option { return func(s *wire.Settings) { s.Token = key } }

// WithRetry replaces the retry policy (default llm.DefaultRetry()).
func WithRetry(p llm.RetryPolicy) Option { return func(s *wire.Settings) { s.Retry = p } }

// WithTimeouts replaces the timeouts (default llm.DefaultTimeouts()).
func WithTimeouts(t llm.Timeouts) Option { return func(s *wire.Settings) { s.Timeouts = t } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(s *wire.Settings) { s.UserAgent = ua } }

// New returns a client for the server at baseURL, given with or without
// its "/v1" suffix ("http://localhost:8080" and "http://localhost:8080/v1"
// are the same server).
func New(baseURL string, opts ...Option) (*Client, error) {
	w, err := wire.NewClient(baseURL, wire.Spec{Dialect: Dialect, APISuffix: "/v1", Example: "http://localhost:8080/v1", ParseError: parseError}, opts)
	if err != nil {
		return nil, err
	}
	return &Client{w: w}, nil
}

// Dialect returns "openai".
func (c *Client) Dialect() string { return Dialect }

// BaseURL returns the normalised server address, without "/v1".
func (c *Client) BaseURL() string { return c.w.BaseURL }

// errorBody covers the error shapes OpenAI-compatible servers send:
// OpenAI's and llama.cpp's {"error":{"message","type","code"}}, a bare
// {"error":"text"}, vLLM's top-level {"object":"error","message",...} and
// FastAPI's {"detail":"..."} (OpenWebUI).
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Detail  json.RawMessage `json:"detail"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func parseError(body []byte) (wire.ServerError, bool) {
	var e errorBody
	if json.Unmarshal(body, &e) != nil {
		return wire.ServerError{}, false
	}
	return e.server()
}

// server extracts the error, reporting false when there is none.
func (e *errorBody) server() (wire.ServerError, bool) {
	if t := bytes.TrimSpace(e.Error); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return wire.ServerError{Message: s}, true
		}
		var o errorObject
		if json.Unmarshal(t, &o) == nil {
			return wire.ServerError{Message: o.Message, Type: o.Type, Code: codeText(o.Code)}, true
		}
		return wire.ServerError{Message: string(t)}, true
	}
	if e.Object == "error" || (e.Message != "" && e.Type != "") {
		return wire.ServerError{Message: e.Message, Type: e.Type, Code: codeText(e.Code)}, true
	}
	var detail string
	if json.Unmarshal(e.Detail, &detail) == nil && detail != "" {
		return wire.ServerError{Message: detail}, true
	}
	return wire.ServerError{}, false
}

// codeText renders an error code that may be a string or a number.
func codeText(raw json.RawMessage) string {
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

// Chat starts a streamed chat completion on /v1/chat/completions.
func (c *Client) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	call := &wire.Call{Method: http.MethodPost, Path: "/v1/chat/completions", Model: req.Model, Body: chatBody(req), Accept: "text/event-stream"}
	return wire.OpenStream(ctx, &c.w, call, newChatStream)
}

// Generate starts a streamed completion on /v1/completions, with suffix for
// fill-in-the-middle where the server supports it. The endpoint applies no
// template, so System and Images cannot be sent (KindUnsupported); Think
// and KeepAlive have no equivalent and are ignored.
func (c *Client) Generate(ctx context.Context, req *llm.GenerateRequest) (llm.Stream[llm.GenerateChunk], error) {
	call := &wire.Call{Method: http.MethodPost, Path: "/v1/completions", Model: req.Model, Accept: "text/event-stream"}
	switch {
	case req.System != "":
		return nil, c.w.Err(call, llm.KindUnsupported, 0, "/v1/completions takes no system prompt; put it in the prompt", nil)
	case len(req.Images) > 0:
		return nil, c.w.Err(call, llm.KindUnsupported, 0, "/v1/completions takes no images; use Chat", nil)
	}
	call.Body = newCompletionRequest(req)
	return wire.OpenStream(ctx, &c.w, call, newCompletionStream)
}

// RunningModels is not part of the dialect.
func (c *Client) RunningModels(context.Context) ([]llm.RunningModel, error) {
	return nil, c.w.Err(&wire.Call{Method: http.MethodGet, Path: "/api/ps"}, llm.KindUnsupported, 0, "no list of running models", nil)
}

// Version is not part of the dialect.
func (c *Client) Version(context.Context) (string, error) {
	return "", c.w.Err(&wire.Call{Method: http.MethodGet, Path: "/api/version"}, llm.KindUnsupported, 0, "no version endpoint", nil)
}
