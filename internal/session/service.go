package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// Log is the event log the service writes and reads (*store.Store).
type Log interface {
	Append(ctx context.Context, rec *store.EventRecord) error
	// AppendAsync queues an event for the next group commit (emit.go).
	// done is called in the order events were queued: the publisher's
	// settleNext relies on it.
	AppendAsync(ctx context.Context, rec *store.EventRecord, done func(error)) error
	// Flush commits what AppendAsync queued now, without its commit delay,
	// and waits for it (Turn.Sync).
	Flush(ctx context.Context) error
	Events(ctx context.Context, session string, afterSeq int64, limit int) ([]store.EventRecord, error)
	Path(ctx context.Context, session string, leafSeq int64) ([]store.EventRecord, error)
	LastSeq(ctx context.Context, session string) (int64, error)
	// LastOfType is the last event of a type on the current branch, nil
	// when there is none (todos.go).
	LastOfType(ctx context.Context, session, typ string) (*store.EventRecord, error)
}

// Rows are the session rows the service keeps (*store.Store).
type Rows interface {
	CreateSession(ctx context.Context, sess *store.Session) error
	Session(ctx context.Context, id string) (*store.Session, error)
	UpdateSession(ctx context.Context, id string, edit func(*store.Session) error) (*store.Session, error)
	SetStatus(ctx context.Context, id string, st store.Status) error
}

// Store is what the service needs of the database: *store.Store.
type Store interface {
	Log
	Rows
	Catalog   // resolve.go, manage.go
	Branching // branch.go
	PromptLog // history.go
}

// Deps are the service's dependencies.
type Deps struct {
	// Store is required.
	Store Store
	// Bus carries published events; nil: a new one (see Service.Bus).
	Bus *event.Bus
	// Runner runs turns (the agent); Prompt fails without one.
	Runner Runner
	// Now is the clock for ephemeral events; nil: time.Now.
	Now func() time.Time
	// OpenWorkspace builds a session's workspace from its directory; nil:
	// workspace.New with that one root.
	OpenWorkspace func(dir string) (*workspace.Workspace, error)
	// Compactor runs /compact; nil: the Runner when it implements
	// Compactor, else /compact is unavailable.
	Compactor Compactor
	// Titles writes a model title for a new session, in the background,
	// after its first prompt (agent.sessionTitleGeneration); nil keeps the
	// first-message title. TitleTimeout bounds it (0: 15 s).
	Titles       TitleGenerator
	TitleTimeout time.Duration
	// Prompts expands the workspace's MCP prompts (/mcp__server__prompt);
	// nil: there are none.
	Prompts PromptSource
	// Log receives what the person is not shown (a title the model could
	// not write, memory that could not be stored); nil discards it.
	Log *slog.Logger
	// UserConfigDir is olly's configuration directory, holding the
	// person's own custom commands and skills; "": none (slash_custom.go).
	UserConfigDir string
}

// ErrBusy is returned by Prompt while the session is already running a turn.
var ErrBusy = errors.New("session is busy")

// Service runs sessions. It is safe for concurrent use.
type Service struct {
	store     Store
	bus       *event.Bus
	runner    Runner
	compactor Compactor
	prompts   PromptSource
	now       func() time.Time
	openWS    func(string) (*workspace.Workspace, error)
	userDir   string // custom commands and skills (slash_custom.go)

	// titles.go: model-written titles, run in the background (bg).
	titles       TitleGenerator
	titleTimeout time.Duration
	log          *slog.Logger
	bg           *background

	mu sync.Mutex
	// sessions holds each session used in this process: its emit order,
	// publisher, running turn and queue (live.go).
	sessions map[string]*live
	spaces   map[string]*workspace.Workspace
}

// New builds the service.
func New(d Deps) (*Service, error) {
	if d.Store == nil {
		return nil, errors.New("session service: no store")
	}
	s := &Service{store: d.Store, bus: d.Bus, runner: d.Runner, now: d.Now, openWS: d.OpenWorkspace,
		sessions: map[string]*live{}, spaces: map[string]*workspace.Workspace{}}
	if s.bus == nil {
		s.bus = event.NewBus()
	}
	s.titles, s.titleTimeout, s.log, s.bg = d.Titles, d.TitleTimeout, d.Log, newBackground()
	s.compactor, s.prompts, s.userDir = d.Compactor, d.Prompts, d.UserConfigDir
	if c, ok := d.Runner.(Compactor); ok && s.compactor == nil {
		s.compactor = c
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.openWS == nil {
		s.openWS = func(dir string) (*workspace.Workspace, error) { return workspace.New([]string{dir}) }
	}
	return s, nil
}

// Bus returns the bus events are published on.
func (s *Service) Bus() *event.Bus { return s.bus }

// CreateOptions describe a new session.
type CreateOptions struct {
	// ID is the new session's id (store.NewID); empty: one is made. A
	// frontend that starts the session's shell before the session is
	// stored (app.PrestartShell) picks it first.
	ID string
	// Workspace is the project directory (made absolute).
	Workspace string
	// Mode and Model are the session's defaults ("" model: the agent's
	// configured one).
	Mode  event.Mode
	Model string
	Title string
}

// Create stores a new, idle session.
func (s *Service) Create(ctx context.Context, o CreateOptions) (*store.Session, error) {
	dir, err := filepath.Abs(strings.TrimSpace(o.Workspace))
	if err != nil || strings.TrimSpace(o.Workspace) == "" {
		return nil, fmt.Errorf("create session: workspace %q is not a usable directory; pass the project directory (--cwd)", o.Workspace)
	}
	ws, err := s.openWS(dir)
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	sess := &store.Session{ID: o.ID, Workspace: ws.Primary().Path, Mode: string(o.Mode), Model: o.Model, Title: o.Title}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.spaces[sess.ID] = ws
	s.mu.Unlock()
	return sess, nil
}

// Open returns the session with id.
func (s *Service) Open(ctx context.Context, id string) (*store.Session, error) {
	sess, err := s.store.Session(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("no session %q — `olly sessions list` shows the sessions: %w", id, err)
	}
	return sess, err
}

// Busy reports whether the session is running a turn in this process that
// has not yet emitted turn_finished: a frontend that has seen the turn end
// never hears that it is still busy.
func (s *Service) Busy(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.sessions[id]
	return l != nil && l.cancel != nil && !l.finished
}

// Abort cancels the session's running turn and reports whether one was
// running. The turn ends with turn_finished{canceled}; its Prompt returns.
func (s *Service) Abort(id string) bool {
	s.mu.Lock()
	var cancel context.CancelFunc
	if l := s.sessions[id]; l != nil {
		cancel = l.cancel
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

// History returns the events of the session's current branch, in order:
// what timeline.Build renders for an opened session.
func (s *Service) History(ctx context.Context, id string) ([]event.Event, error) {
	recs, err := s.store.Path(ctx, id, 0)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return decodeAll(recs)
}

// Conversation rebuilds the model's view of the session's current branch
// from the log.
func (s *Service) Conversation(ctx context.Context, id string) (*Conversation, error) {
	evs, err := s.History(ctx, id)
	if err != nil {
		return nil, err
	}
	c := BuildConversation(evs)
	c.SetImageLoader(s.imageLoader())
	return c, nil
}

// workspace returns the session's workspace, kept for the life of the
// service so that directories the person allowed stay allowed.
func (s *Service) workspace(sess *store.Session) (*workspace.Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ws := s.spaces[sess.ID]; ws != nil {
		return ws, nil
	}
	ws, err := s.openWS(sess.Workspace)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", sess.ID, err)
	}
	s.spaces[sess.ID] = ws
	return ws, nil
}
