// Package ollama is olly's client for Ollama's native API (/api/...). It
// implements llm.Provider: streamed chat and generate over NDJSON, model
// listing and details, running models, embeddings and the server version.
package ollama

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// Dialect is the name this client reports for its wire format.
const Dialect = "ollama"

// DefaultUserAgent is sent unless WithUserAgent says otherwise.
const DefaultUserAgent = wire.DefaultUserAgent

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	w wire.Client
}

var _ llm.Provider = (*Client)(nil)

// Option configures a Client.
type Option func(*wire.Settings)

// WithHTTPClient sets the HTTP client. The default has no overall timeout,
// because a streamed answer may legitimately take many minutes; cancel the
// context instead.
func WithHTTPClient(hc *http.Client) Option { return func(s *wire.Settings) { s.HTTP = hc } }

// WithToken sends "Authorization: Bearer token" on every request, as
// OpenWebUI and authenticating proxies in front of Ollama require.
func WithToken(token string) Option { return func(s *wire.Settings) { s.Token = token } }

// WithRetry replaces the retry policy (default llm.DefaultRetry()).
func WithRetry(p llm.RetryPolicy) Option { return func(s *wire.Settings) { s.Retry = p } }

// WithTimeouts replaces the timeouts (default llm.DefaultTimeouts()).
func WithTimeouts(t llm.Timeouts) Option { return func(s *wire.Settings) { s.Timeouts = t } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(s *wire.Settings) { s.UserAgent = ua } }

// New returns a client for the Ollama server at baseURL. The address is
// normalised: spaces and trailing slashes trimmed, "http://" added when it
// has no scheme, and a trailing "/api" dropped.
func New(baseURL string, opts ...Option) (*Client, error) {
	w, err := wire.NewClient(baseURL, wire.Spec{Dialect: Dialect, APISuffix: "/api", Example: "http://localhost:11434", ParseError: parseError}, opts)
	if err != nil {
		return nil, err
	}
	return &Client{w: w}, nil
}

// Dialect returns "ollama".
func (c *Client) Dialect() string { return Dialect }

// BaseURL returns the normalised server address.
func (c *Client) BaseURL() string { return c.w.BaseURL }

// parseError reads Ollama's error body, {"error":"text"}. When the text is
// itself the JSON error of the llama-server runner (Ollama passes the
// runner's 400 on as a string, as with "truncate": false), the runner's
// message, type and code are taken from it: shown raw, it is unreadable,
// and its type says whether the prompt overflowed.
func parseError(body []byte) (wire.ServerError, bool) {
	var e struct {
		Error *string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil {
		return wire.ServerError{}, false
	}
	if inner, ok := wire.NestedError(*e.Error); ok {
		return inner, true
	}
	return wire.ServerError{Message: *e.Error}, true
}

// Chat starts a streamed chat completion on /api/chat.
func (c *Client) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	call := &wire.Call{Method: http.MethodPost, Path: "/api/chat", Model: req.Model, Body: chatBody(req), Accept: "application/x-ndjson"}
	return wire.OpenStream(ctx, &c.w, call, newChatStream)
}

// Generate starts a streamed completion on /api/generate; with Suffix set
// it is a fill-in-the-middle request.
func (c *Client) Generate(ctx context.Context, req *llm.GenerateRequest) (llm.Stream[llm.GenerateChunk], error) {
	call := &wire.Call{Method: http.MethodPost, Path: "/api/generate", Model: req.Model, Body: newGenerateRequest(req), Accept: "application/x-ndjson"}
	return wire.OpenStream(ctx, &c.w, call, newGenerateStream)
}
