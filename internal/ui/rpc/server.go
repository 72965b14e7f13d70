package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
	"github.com/olly-agent/olly/rpcproto"
)

// readerGrace is how long Serve waits, once it stopped, for its reading
// goroutine to end after closing the input. A terminal's or parent's
// blocking stdin may not wake up; the process exits right after anyway.
const readerGrace = time.Second

// Store is what the server searches (*store.Store): everything else it
// asks of the session service.
type Store interface {
	session.Indexable
}

// Models lists the server's models and describes one (*models.Catalog).
type Models interface {
	List(ctx context.Context) ([]models.Model, error)
	Details(ctx context.Context, name string) (*llm.ModelDetails, error)
}

// Options configure a server. Sessions, Approvals, Store and SessionID are
// required; a nil optional capability makes its commands answer that they
// are not available in this build.
type Options struct {
	// In carries commands, Out every frame the server writes (and nothing
	// else may be written to it).
	In  io.Reader
	Out io.Writer

	Sessions  *session.Service
	Approvals *approval.Manager
	Store     Store
	// SessionID is the session commands act on at first.
	SessionID string

	// Events selects the event families written (FamilyOlly, FamilyPi,
	// FamilyBoth; "" is both).
	Events string
	// Version is olly's version, for the ready frame; Warnings are
	// problems found while starting (the model server is down…).
	Version  string
	Warnings []string
	// Server describes the model server and the agent's settings in pi's
	// model objects, as they are now (the settings page may change them
	// while olly runs); nil: nothing is known.
	Server func() ModelServer
	// MaxLine caps an input line (DefaultMaxLine when 0).
	MaxLine int
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger

	// Models lists and checks models (get_available_models, set_model).
	Models Models
	// Checkpoints returns the checkpoint manager of a session's workspace
	// (list_changes, keep, undo, review_navigate).
	Checkpoints func(ctx context.Context, sessionID string) (*checkpoint.Manager, error)
	// RunCommand runs a command the person typed in the session's shell
	// (bash); canceling ctx stops it.
	RunCommand func(ctx context.Context, sessionID, command string) (*rpcproto.BashResult, error)
	// SetAutoApprove changes a session's auto-approve toggles and applies
	// them to running turns (set_auto_approve).
	SetAutoApprove func(ctx context.Context, sessionID string, commands, sensitiveEdits *bool) (*store.Session, error)
	// Opened, when set, is told each session new_session creates and
	// switch_session switches to (olly starts its shell ahead:
	// app.PrestartShell).
	Opened func(*store.Session)
	// ExportHTML renders a session as a page (export_html); ExportDir is
	// where pages go when the client names no path.
	ExportHTML func(w io.Writer, sess *store.Session, events []event.Event) error
	ExportDir  string
	// Embedder adds search by meaning to search_sessions; nil: by words.
	Embedder *store.Embedder
	// AutoCompaction reads and sets automatic context compaction
	// (set_auto_compaction, get_state).
	AutoCompaction AutoCompaction
	// AutoRetry reads and sets the retries of transient model errors
	// (set_auto_retry, abort_retry; cmd_retry.go).
	AutoRetry AutoRetry
	// Levels reads and sets the sessions' thinking levels
	// (set_thinking_level, cycle_thinking_level, get_state).
	Levels Thinking
	// OnSession, when set, is called with the session the connection
	// works on each time that changes (new_session, switch_session, fork,
	// a /new prompt) or its branch moves (branch), once commands act on
	// it and before the command's response is written; not for the
	// session it starts on. It runs in the goroutine of the command (or
	// of the prompt that ran /new) and must not block. The web UI's
	// timeline follows it.
	OnSession func(sessionID string)
	// Files lists and matches a workspace's files for complete_files
	// (*workspace.FileIndex, which the composition root shares between
	// frontends so its cache serves them all); nil: a cache of this
	// connection's own.
	Files FileCompleter
	// Settings reads and writes the settings and the per-model table
	// (get_settings, set_setting, test_connection, list_models,
	// set_model_enabled, set_model_context).
	Settings Settings
	// Trust lists and answers the trust prompts of project MCP servers
	// and hooks (get_trust_requests, set_trust).
	Trust Trust

	// Work, when set, owns prompts and the commands that wait (they run
	// in its goroutines, under its context) instead of this connection:
	// a client that goes away leaves them running, and Serve does not
	// settle the session's pending approvals when it ends. The web UI
	// sets it (a tab that reloads, or one of several tabs that closes,
	// must not stop the turn the others watch); RPC mode does not:
	// closing stdin stops the work.
	Work Runner
}

// ModelServer is what pi's model objects say of the model server:
// Provider ("ollama", "openai") and BaseURL, with the agent's settings
// Thinking (agent.enableThinking) and MaxTokens (agentMode.maxTokens).
type ModelServer struct {
	Provider  string
	BaseURL   string
	Thinking  bool
	MaxTokens int
}

// server is Options.Server's answer, or the zero one.
func (s *Server) server() ModelServer {
	if s.opts.Server == nil {
		return ModelServer{}
	}
	return s.opts.Server()
}

// Runner runs work that outlives one connection (*web.Server's turns).
type Runner interface {
	// Go runs fn in a goroutine the runner waits for, with the runner's
	// context.
	Go(fn func(ctx context.Context))
}

// FileCompleter completes @file mentions (*workspace.FileIndex).
type FileCompleter interface {
	Complete(ctx context.Context, w *workspace.Workspace, query string, limit int) ([]string, error)
}

// AutoCompaction is the agent's automatic context compaction switch.
type AutoCompaction interface {
	AutoCompaction(sessionID string) bool
	SetAutoCompaction(sessionID string, on bool) error
}

// errUnavailable is the answer of a command whose capability this build
// does not have.
func errUnavailable(command, what string) error {
	return fmt.Errorf("%s is not available in this build: %s", command, what)
}

// Server is one RPC session with a client: it reads commands, answers
// them, and streams the events of the session it works on.
type Server struct {
	opts Options
	out  *lineWriter
	cmds map[string]*command

	// work is canceled when the server stops: running prompts and
	// commands end (canceled), and every goroutine they started returns
	// before Serve does.
	work   context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	failed chan struct{} // closed when the client cannot be written to
	once   sync.Once

	mu         sync.Mutex
	sessionID  string
	compacting bool
	bash       context.CancelFunc
	reviews    map[string]*checkpoint.ReviewSession
	follow     *follower
}

// Serve speaks the protocol on opts.In and opts.Out until the input ends,
// ctx is canceled (SIGTERM) or the client can no longer be written to.
// Then it cancels running work (pending approvals are settled as canceled),
// waits for it, writes the events that work still produced, and returns
// nil: ending the input is how a client says goodbye. An error means the
// server could not start.
func Serve(ctx context.Context, opts Options) error {
	s, err := newServer(opts)
	if err != nil {
		return err
	}
	defer s.stop()
	if err := s.start(ctx); err != nil {
		s.shutdown()
		return err
	}
	lines, readDone := s.read()
	s.loop(ctx, lines)
	s.shutdown()
	if c, ok := opts.In.(io.Closer); ok {
		_ = c.Close()
	}
	select {
	case <-readDone:
	case <-time.After(readerGrace):
		s.log().Warn("rpc: the input could not be closed; its reader ends with the process")
	}
	return nil
}

func newServer(opts Options) (*Server, error) {
	switch {
	case opts.In == nil || opts.Out == nil:
		return nil, errors.New("rpc: input and output are required")
	case opts.Sessions == nil || opts.Approvals == nil || opts.Store == nil:
		return nil, errors.New("rpc: the session service, the approval manager and the store are required")
	case opts.SessionID == "":
		return nil, errors.New("rpc: no session to start on")
	}
	switch opts.Events {
	case "":
		opts.Events = rpcproto.FamilyBoth
	case rpcproto.FamilyOlly, rpcproto.FamilyPi, rpcproto.FamilyBoth:
	default:
		return nil, fmt.Errorf("rpc: unknown event family %q: use %s, %s or %s", opts.Events, rpcproto.FamilyOlly, rpcproto.FamilyPi, rpcproto.FamilyBoth)
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	if opts.Files == nil {
		opts.Files = workspace.NewFileIndex(workspace.FileIndexOptions{})
	}
	s := &Server{opts: opts, out: &lineWriter{w: opts.Out}, failed: make(chan struct{}),
		sessionID: opts.SessionID, reviews: map[string]*checkpoint.ReviewSession{}}
	s.work, s.stop = context.WithCancel(context.Background())
	s.cmds = commandTable()
	return s, nil
}

func (s *Server) log() *slog.Logger {
	if s.opts.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.opts.Log
}

// start follows the first session and writes the ready frame.
func (s *Server) start(ctx context.Context) error {
	sess, err := s.opts.Sessions.Open(ctx, s.opts.SessionID)
	if err != nil {
		return err
	}
	last, err := s.opts.Sessions.LastSeq(ctx, sess.ID)
	if err != nil {
		return err
	}
	if err := s.followSession(sess.ID, last); err != nil {
		return err
	}
	names := make([]string, 0, len(s.cmds))
	for name := range s.cmds {
		names = append(names, name)
	}
	slices.Sort(names)
	ready := rpcproto.Ready{Type: rpcproto.TypeReady, ProtocolVersion: rpcproto.ProtocolVersion, Version: s.opts.Version, SessionID: sess.ID,
		Model: sess.Model, Workspace: sess.Workspace, Events: s.opts.Events, Commands: names, Warnings: s.opts.Warnings}
	if err := s.out.write(ready); err != nil {
		return err
	}
	return nil
}

// line is one read line, or the error that ended or skipped it.
type line struct {
	b   []byte
	err error
}

// read reads lines in its own goroutine, so a stop never waits for input.
func (s *Server) read() (<-chan line, <-chan struct{}) {
	lines := make(chan line)
	done := make(chan struct{})
	lr := newLineReader(s.opts.In, s.opts.MaxLine)
	go func() {
		defer close(done)
		defer close(lines)
		for {
			b, err := lr.next()
			var tooLong errLineTooLong
			if err != nil && !errors.As(err, &tooLong) {
				if !errors.Is(err, io.EOF) {
					s.log().Warn("rpc: reading commands failed", "error", err)
				}
				return
			}
			// The reader reuses its buffer: the line travels as a copy.
			select {
			case lines <- line{b: bytes.Clone(b), err: err}:
			case <-s.work.Done():
				return
			}
		}
	}()
	return lines, done
}

// loop handles lines until the input ends, ctx ends or writing fails.
func (s *Server) loop(ctx context.Context, lines <-chan line) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.failed:
			return
		case l, ok := <-lines:
			if !ok {
				return
			}
			s.handle(l)
		}
	}
}

// shutdown cancels running work and waits for it, then writes what the
// session's subscription still holds.
func (s *Server) shutdown() {
	s.mu.Lock()
	id := s.sessionID
	s.mu.Unlock()
	s.stop()
	// Requests waiting in a turn are canceled through their context; a
	// request of a turn that is not ours (none should be) is settled too.
	// Work that outlives the connection keeps its requests.
	if s.opts.Work == nil {
		s.opts.Approvals.CancelSession(id)
	}
	s.wg.Wait()
	s.mu.Lock()
	f := s.follow
	s.follow = nil
	s.mu.Unlock()
	if f != nil {
		f.close(true)
	}
}

// fail notes that the client cannot be written to: the server stops.
func (s *Server) fail(err error) {
	s.once.Do(func() {
		s.log().Warn("rpc: stopping", "error", err)
		close(s.failed)
	})
}

// write writes a frame; a failure stops the server.
func (s *Server) write(v any) {
	if err := s.out.write(v); err != nil {
		s.fail(err)
	}
}

// respond answers a command.
func (s *Server) respond(id json.RawMessage, command string, data any, err error) {
	r := rpcproto.Response{ID: id, Type: rpcproto.TypeResponse, Command: command, Success: err == nil}
	if err != nil {
		r.Error = err.Error()
		s.write(r)
		return
	}
	if data != nil {
		b, merr := json.Marshal(data)
		if merr != nil {
			r.Success, r.Error = false, fmt.Sprintf("encode the result: %v", merr)
		} else {
			r.Data = b
		}
	}
	s.write(r)
}

// current returns the session commands act on.
func (s *Server) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// goWork runs fn in a goroutine Serve waits for, with the server's work
// context; or, with Options.Work, in one of the runner's.
func (s *Server) goWork(fn func(ctx context.Context)) {
	if s.opts.Work != nil {
		s.opts.Work.Go(fn)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn(s.work)
	}()
}
