// Package llmtest is a scripted fake model server for tests. One server
// speaks both dialects on one URL — Ollama under /api/... and the
// OpenAI-compatible API under /v1/... — framed exactly as the real servers
// frame them, so a test picks the dialect by the client it builds:
//
//	srv := llmtest.New(t)
//	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools", "thinking"), llmtest.ContextLength(40960))
//	srv.Enqueue(
//		llmtest.Reply(llmtest.Thinking("plan..."), llmtest.Text("Hello"), llmtest.ToolCall("read_file", `{"path":"a.go"}`)),
//		llmtest.Status(500, "boom"), // the client retries; the next reply serves the retry
//		llmtest.Reply(llmtest.Text("done")),
//	)
//	c, _ := ollama.New(srv.URL()) // or openai.New(srv.URL())
//
// Each chat or generate request takes the next queued Response (see
// Enqueue and EnqueueFor), or asks the Handle function when the queue is
// empty. A request nothing was scripted for fails the test (t.Errorf) and
// gets an HTTP 500, so a test fails loudly instead of hanging. Every
// request is recorded with its neutral decoded form (Requests).
package llmtest

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Flavor selects the OpenAI-compatible server the /v1 endpoints imitate,
// where they differ: the name of the reasoning delta and the extras of
// /v1/models.
type Flavor int

const (
	// FlavorOllama is Ollama's /v1 layer: reasoning deltas in "reasoning",
	// no context length in /v1/models.
	FlavorOllama Flavor = iota
	// FlavorVLLM is vLLM: "reasoning_content", and max_model_len in
	// /v1/models.
	FlavorVLLM
	// FlavorLlamaCpp is llama.cpp's server: "reasoning_content", and
	// meta.n_ctx_train in /v1/models.
	FlavorLlamaCpp
)

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server answer 401 to requests without
// "Authorization: Bearer token".
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// WithFlavor selects the OpenAI-compatible server imitated (default
// FlavorOllama).
func WithFlavor(f Flavor) Option { return func(s *Server) { s.flavor = f } }

// WithCRLF ends server-sent-event lines with CRLF instead of LF, as some
// proxies do.
func WithCRLF() Option { return func(s *Server) { s.crlf = true } }

// WithVersion sets what /api/version reports (default "0.12.6").
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// Server is the fake. Its methods are safe for concurrent use, and it
// serves concurrent requests.
type Server struct {
	t       testing.TB
	ts      *httptest.Server
	closing chan struct{}
	once    sync.Once
	token   string
	version string
	flavor  Flavor
	crlf    bool

	mu      sync.Mutex
	models  []*model
	queue   []Response
	paths   map[string][]Response
	handler func(*Request) Response
	// structured answers every request for structured output (a format)
	// when set, ahead of the queues.
	structured *Response
	embedder   func(model, input string) []float32
	requests   []*Request
	canceled   int
	cancelCh   chan struct{}
	callSeq    int
	respSeq    int
	// tokenize counts tokens (nil: Tokens).
	tokenize func(string) int
}

// New starts a server that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	s := &Server{
		t:        t,
		closing:  make(chan struct{}),
		version:  "0.12.6",
		paths:    map[string][]Response{},
		cancelCh: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	s.ts = httptest.NewUnstartedServer(s)
	// Aborted and hijacked responses are the point of several scripts;
	// their log lines would only be noise.
	s.ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.ts.Start()
	t.Cleanup(s.Close)
	return s
}

// URL is the server's root; give it to ollama.New or openai.New.
func (s *Server) URL() string { return s.ts.URL }

// Client returns an HTTP client for the server whose connections are closed
// with it.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close stops the server. Hung and stalled responses end at once. It is
// called automatically when the test ends.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Enqueue appends responses to the queue that chat, generate and
// completion requests of both dialects take from, one each, in order.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// EnqueueFor queues responses for one path ("/api/tags", "/v1/embeddings",
// "/api/chat"), taken before the shared queue. For endpoints that do not
// generate (models, embeddings, version) only failures make sense (Status,
// ModelNotFound, Hang, Disconnect, or a Reply holding a MalformedLine, which
// is sent as the whole body); any other Reply means "answer normally".
func (s *Server) EnqueueFor(path string, rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paths[path] = append(s.paths[path], rs...)
}

// Handle sets the function that answers chat, generate and completion
// requests once the queues are empty: for agent tests whose replies depend
// on what was sent.
func (s *Server) Handle(fn func(r *Request) Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = fn
}

// SetEmbedder sets the function that computes embedding vectors
// (HashEmbedder gives deterministic ones). Without it an embedding request
// fails the test.
func (s *Server) SetEmbedder(fn func(model, input string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedder = fn
}

// Pending reports how many queued responses have not been served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.queue)
	for _, q := range s.paths {
		n += len(q)
	}
	return n
}

// Requests returns every request received so far, in order of arrival.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// LastRequest returns the most recent request to path, or nil.
func (s *Server) LastRequest(path string) *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.requests) - 1; i >= 0; i-- {
		if s.requests[i].Path == path {
			return s.requests[i]
		}
	}
	return nil
}

// Canceled reports how many hung or stalled responses saw their client go
// away.
func (s *Server) Canceled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.canceled
}

// WaitCanceled waits until at least n hung or stalled responses have seen
// their client go away, or ctx ends.
func (s *Server) WaitCanceled(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		got, ch := s.canceled, s.cancelCh
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wait blocks until the client goes away (counted) or the server closes.
func (s *Server) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
		s.mu.Lock()
		s.canceled++
		close(s.cancelCh)
		s.cancelCh = make(chan struct{})
		s.mu.Unlock()
	case <-s.closing:
	}
}

// ServeHTTP records the request, checks the token, and routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away while sending
	}
	req := &Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Dialect: "ollama"}
	if strings.HasPrefix(req.Path, "/v1/") {
		req.Dialect = "openai"
	}
	req.decode()
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
		s.writeError(w, req, http.StatusUnauthorized, "unauthorized: missing or wrong API key")
		return
	}
	s.route(w, r, req)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, req *Request) {
	if s.flavor != FlavorOllama && strings.HasPrefix(req.Path, "/api/") {
		// vLLM and llama.cpp have no Ollama API: olly's OpenAI client
		// asks /api/version to tell Ollama's /v1 from them.
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	switch req.Method + " " + req.Path {
	case "GET /", "HEAD /":
		_, _ = io.WriteString(w, "Ollama is running")
	case "GET /api/version":
		s.serveSimple(w, r, req, s.serveVersion)
	case "GET /api/tags":
		s.serveSimple(w, r, req, s.tags)
	case "POST /api/show":
		s.serveSimple(w, r, req, s.show)
	case "GET /api/ps":
		s.serveSimple(w, r, req, s.ps)
	case "GET /v1/models":
		s.serveSimple(w, r, req, s.openaiModels)
	case "POST /api/embed":
		s.serveSimple(w, r, req, s.ollamaEmbed)
	case "POST /v1/embeddings":
		s.serveSimple(w, r, req, s.openaiEmbed)
	case "POST /api/chat":
		s.serveGeneration(w, r, req, endpointChat)
	case "POST /api/generate":
		s.serveGeneration(w, r, req, endpointGenerate)
	case "POST /v1/chat/completions":
		s.serveGeneration(w, r, req, endpointChat)
	case "POST /v1/completions":
		s.serveGeneration(w, r, req, endpointGenerate)
	default:
		http.Error(w, "404 page not found", http.StatusNotFound)
	}
}

// serveSimple answers a non-generating endpoint, unless a failure was
// queued for its path.
func (s *Server) serveSimple(w http.ResponseWriter, r *http.Request, req *Request, fn func(http.ResponseWriter, *Request)) {
	s.mu.Lock()
	q := s.paths[req.Path]
	var resp Response
	queued := len(q) > 0
	if queued {
		resp, s.paths[req.Path] = q[0], q[1:]
	}
	s.mu.Unlock()
	if queued && resp.kind != kindReply {
		s.serveFailure(w, r, req, resp)
		return
	}
	for _, p := range resp.parts {
		if p.kind == partMalformed {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = io.WriteString(w, p.text)
			return
		}
	}
	fn(w, req)
}

// AnswerStructured answers every request that asks for structured output
// (format: "json" or a schema) with resp, ahead of the queues: a caller's
// side calls (olly's prompt classification) then need no place in a
// test's script.
func (s *Server) AnswerStructured(resp Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.structured = &resp
}

// next takes the response for a generation request: the structured-output
// answer, the path's queue, the shared queue, then the handler.
func (s *Server) next(req *Request) (Response, bool) {
	s.mu.Lock()
	if s.structured != nil && len(req.Format) > 0 {
		resp := *s.structured
		s.mu.Unlock()
		return resp, true
	}
	if q := s.paths[req.Path]; len(q) > 0 {
		s.paths[req.Path] = q[1:]
		s.mu.Unlock()
		return q[0], true
	}
	if len(s.queue) > 0 {
		resp := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return resp, true
	}
	h := s.handler
	s.mu.Unlock()
	if h == nil {
		return Response{}, false
	}
	return h(req), true
}

// unscripted fails the test and the request.
func (s *Server) unscripted(w http.ResponseWriter, req *Request, what string) {
	msg := "llmtest: no scripted " + what + " for " + req.Method + " " + req.Path + " (model " + req.Model + ")"
	s.t.Errorf("%s", msg)
	s.writeError(w, req, http.StatusInternalServerError, msg)
}

func (s *Server) serveFailure(w http.ResponseWriter, r *http.Request, req *Request, resp Response) {
	switch resp.kind {
	case kindStatus:
		s.writeError(w, req, resp.status, resp.message)
	case kindNotFound:
		s.notFound(w, req)
	case kindOverflow:
		s.overflow(w, req)
	case kindHang:
		s.wait(r)
	case kindDisconnect:
		dropConnection(w)
	}
}
