// Package lspserver is `olly lsp`: a language server over stdio that
// gives any editor inline completions (fill-in-the-middle from a local
// model) and an "Edit with olly…" code action. A request costs one model
// call: there is no agent loop here and no database; every new keystroke
// cancels the request in flight, down to the HTTP request, so the model
// server stops generating.
package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// Settings are the completion and edit settings, taken from olly's
// settings by the caller.
type Settings struct {
	// Model is completionMode.model; empty picks the best installed model
	// that can fill in the middle.
	Model       string
	Temperature float64
	MaxTokens   int
	// EditModel answers "Edit with olly…" (chatMode.model, else
	// agentMode.model); empty uses the completion model.
	EditModel       string
	EditTemperature float64
	EditMaxTokens   int
	// Enabled is enableAutoComplete: when false, completions are offered
	// only when the person asks (an invoked inline completion).
	Enabled bool
	// PrefixChars and SuffixChars bound the windows around the cursor;
	// ContextChars bounds the other open files' excerpts.
	PrefixChars, SuffixChars, ContextChars int
	// Debounce is how long a completion waits for the next keystroke
	// before it asks the model; LatencyBudget is how long the model may
	// take before the completion is dropped.
	Debounce, LatencyBudget time.Duration
	// KeepAlive keeps the model loaded between completions (Ollama).
	KeepAlive string
}

// Options are what Serve needs.
type Options struct {
	Provider llm.Provider
	Settings Settings
	Log      *slog.Logger
	Version  string
	// Warm loads the completion model when the editor connects (Ollama),
	// so the first completion does not wait for it.
	Warm bool
}

// Server is one editor connection.
type Server struct {
	opts  Options
	set   Settings
	log   *slog.Logger
	model *resolver
	edit  string

	ctx    context.Context // ends when the connection does
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	conn        *jsonrpc2.Conn
	docs        map[lsp.DocumentURI]*document
	seq         uint64
	inflight    *pending // the one completion in flight
	byID        map[string]context.CancelFunc
	initialized bool
	shutdown    bool
	annotations bool // the client confirms annotated edits (shows a diff)
}

// pending is a completion request in flight.
type pending struct {
	id     jsonrpc2.ID
	cancel context.CancelCauseFunc
}

// errSuperseded is why a completion is canceled by the next keystroke.
var errSuperseded = fmt.Errorf("superseded by a newer keystroke")

// Serve runs the server on rwc (the editor's stdin and stdout) until the
// editor sends exit, the stream ends, or ctx ends. It waits for its
// requests to finish (canceled) before returning.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := newServer(ctx, opts)
	defer s.stop()
	conn := jsonrpc2.NewConn(s.ctx, jsonrpc2.NewBufferedStream(rwc, lsp.Codec()), s, jsonrpc2.SetLogger(slogPrinter{s.log}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		_ = conn.Close()
	}
	return nil
}

func newServer(ctx context.Context, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	set := opts.Settings
	s := &Server{
		opts: opts, set: set, log: opts.Log,
		model: &resolver{p: opts.Provider, want: set.Model},
		edit:  set.EditModel,
		docs:  map[lsp.DocumentURI]*document{},
		byID:  map[string]context.CancelFunc{},
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	return s
}

// stop cancels every request and waits for them.
func (s *Server) stop() {
	s.cancel()
	s.wg.Wait()
}

// Handle is called by the connection for each message, in order. Document
// notifications are applied here, before the next message is read, so a
// completion always sees the text of the keystrokes before it; requests
// that call the model run on their own goroutines.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		s.notification(conn, req)
		return
	}
	s.mu.Lock()
	ready, down := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case req.Method == "initialize":
		res, err := s.initialize(req)
		s.reply(conn, req, res, err)
		return
	case req.Method == "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		s.cancelInflight(errSuperseded)
		_ = conn.Reply(ctx, req.ID, nil)
		return
	case !ready:
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: codeServerNotInitialized, Message: "initialize first"})
		return
	case down:
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: codeInvalidRequest, Message: "the server is shutting down"})
		return
	}
	switch req.Method {
	case "textDocument/inlineCompletion":
		s.startCompletion(conn, req, true)
	case "textDocument/completion":
		s.startCompletion(conn, req, false)
	case "textDocument/codeAction":
		res, err := s.codeActions(req)
		s.reply(conn, req, res, err)
	case "workspace/executeCommand":
		s.startEdit(conn, req)
	default:
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "olly lsp does not handle " + req.Method})
	}
}

// reply sends a handler's result or error.
func (s *Server) reply(conn *jsonrpc2.Conn, req *jsonrpc2.Request, result any, err *jsonrpc2.Error) {
	if err != nil {
		_ = conn.ReplyWithError(s.ctx, req.ID, err)
		return
	}
	_ = conn.Reply(s.ctx, req.ID, result)
}

func (s *Server) notification(conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	switch req.Method {
	case "initialized":
		s.goFn(s.announce)
	case "exit":
		_ = conn.Close()
	case "textDocument/didOpen":
		var p didOpenParams
		if unmarshal(req, &p) == nil {
			s.mu.Lock()
			s.seq++
			s.docs[p.TextDocument.URI] = newDocument(p.TextDocument, s.seq)
			s.mu.Unlock()
		}
	case "textDocument/didChange":
		s.didChange(req)
	case "textDocument/didClose":
		var p didCloseParams
		if unmarshal(req, &p) == nil {
			s.mu.Lock()
			delete(s.docs, p.TextDocument.URI)
			s.mu.Unlock()
		}
	case "$/cancelRequest":
		var p cancelParams
		if unmarshal(req, &p) == nil {
			s.mu.Lock()
			cancel := s.byID[string(p.ID)]
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	}
}

// didChange applies a keystroke and cancels the completion in flight: its
// answer would be for text that is gone.
func (s *Server) didChange(req *jsonrpc2.Request) {
	var p didChangeParams
	if err := unmarshal(req, &p); err != nil {
		return
	}
	s.cancelInflight(errSuperseded)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.log.Warn("lsp: change to a document that is not open", "uri", p.TextDocument.URI)
		return
	}
	if err := d.apply(p.TextDocument.Version, p.ContentChanges); err != nil {
		s.log.Warn("lsp: change not applied", "uri", p.TextDocument.URI, "error", err)
		return
	}
	s.seq++
	d.touched = s.seq
}

func (s *Server) initialize(req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	var p initializeParams
	if err := unmarshal(req, &p); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	s.mu.Lock()
	s.initialized = true
	we := p.Capabilities.Workspace.WorkspaceEdit
	s.annotations = we.DocumentChanges && len(we.ChangeAnnotationSupport) > 0 && string(we.ChangeAnnotationSupport) != "null"
	s.mu.Unlock()
	// A client that shows inline completions gets no completion items as
	// well: both would ask the model on every keystroke, and each request
	// would cancel the other.
	var items *completionOptions
	if ic := p.Capabilities.TextDocument.InlineCompletion; len(ic) == 0 || string(ic) == "null" {
		items = &completionOptions{}
	}
	return initializeResult{
		Capabilities: serverCapabilities{
			TextDocumentSync:         textDocumentSyncOptions{OpenClose: true, Change: 1},
			InlineCompletionProvider: true,
			CompletionProvider:       items,
			CodeActionProvider:       codeActionOptions{CodeActionKinds: []string{"refactor.rewrite"}},
			ExecuteCommandProvider:   executeCommandOptions{Commands: []string{commandEdit}},
		},
		ServerInfo: serverInfo{Name: "olly", Version: s.opts.Version},
	}, nil
}

// announce finds the completion model, tells the editor (olly/status, and
// a message when there is none), and loads it so the first completion is
// quick.
func (s *Server) announce() {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	c, err := s.model.get(ctx)
	if err != nil {
		if s.ctx.Err() != nil {
			return
		}
		msg := fmt.Sprintf("olly: no inline completions: %v", err)
		s.log.Warn("lsp: no completion model", "error", err)
		s.notify("olly/status", StatusParams{Message: msg})
		s.notify("window/showMessage", showMessageParams{Type: 2, Message: msg})
		return
	}
	s.log.Info("lsp: completion model", "model", c.model, "mode", c.mode)
	s.notify("olly/status", StatusParams{Model: c.model, Mode: string(c.mode)})
	if s.opts.Warm && s.opts.Provider.Dialect() == "ollama" {
		s.warm(ctx, c.model)
	}
}

// warm sends Ollama's load request: a generate without a prompt.
func (s *Server) warm(ctx context.Context, model string) {
	st, err := s.opts.Provider.Generate(ctx, &llm.GenerateRequest{Model: model, KeepAlive: s.set.KeepAlive})
	if err != nil {
		s.log.Warn("lsp: loading the completion model", "model", model, "error", err)
		return
	}
	defer st.Close()
	for {
		if _, err := st.Recv(); err != nil {
			return
		}
	}
}

func (s *Server) notify(method string, params any) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Notify(s.ctx, method, params)
	}
}

// goFn runs fn on a goroutine the server waits for when it stops.
func (s *Server) goFn(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

func unmarshal(req *jsonrpc2.Request, v any) error {
	if req.Params == nil {
		return fmt.Errorf("%s: no params", req.Method)
	}
	if err := json.Unmarshal(*req.Params, v); err != nil {
		return fmt.Errorf("%s: %w", req.Method, err)
	}
	return nil
}

// slogPrinter sends the connection's own log lines (protocol errors) to
// olly's log: stdout is the protocol's, and stderr is the editor's.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(format string, v ...any) {
	p.log.Warn("lsp: " + fmt.Sprintf(format, v...))
}
