package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/timeline"
	"github.com/olly-agent/olly/internal/trust"
	"github.com/olly-agent/olly/internal/workspace"
)

// Sessions is what the TUI asks of the session service (*session.Service).
type Sessions interface {
	Submit(ctx context.Context, id string, in session.PromptInput, whenBusy session.WhenBusy) (*session.Submission, error)
	Abort(id string) bool
	Prompts(ctx context.Context, dir, query string, limit int) ([]store.Prompt, error)
	Recent(ctx context.Context, dir string, limit int) ([]store.Session, error)
	ChangeSettings(ctx context.Context, id string, ch event.SessionSettings) (*store.Session, error)
	History(ctx context.Context, id string) ([]event.Event, error)
	Open(ctx context.Context, id string) (*store.Session, error)
	Fork(ctx context.Context, id string, seq int64) (*store.Session, *session.BranchPoint, error)
	Branch(ctx context.Context, id string, seq int64) (*session.BranchPoint, error)
}

// Deps are the services the TUI calls. Every field but Sessions may be nil
// (tests): the feature it serves then says it is unavailable.
type Deps struct {
	Sessions Sessions
	// Answer answers an approval request (approval.Manager.Answer).
	Answer func(sessionID, approvalID string, a approval.Answer) error
	// AlwaysApprove turns on the session's auto-approval of commands and
	// sensitive edits (app.App.SetAutoApprove): the "a" key.
	AlwaysApprove func(ctx context.Context, sessionID string) error
	// RunCommand runs a "!command" line as the person (app.App.RunCommand).
	RunCommand func(ctx context.Context, sessionID, command string) error
	// Checkpoints is the checkpoint manager of the session's workspace.
	Checkpoints func(ctx context.Context, sessionID string) (*checkpoint.Manager, error)
	// Models lists the server's models for the model picker.
	Models func(ctx context.Context) ([]models.Model, error)
	// Files lists the workspace's files (gitignore-aware) for @
	// completion: a workspace.FileIndex's cached listing.
	Files func(ctx context.Context) (*workspace.FileList, error)
	// Branch is the workspace's git branch, for the status line.
	Branch func() string
	// PendingStats are the sessions' pending changes (+N −N badges).
	PendingStats func(ctx context.Context) (map[string]store.DiffStats, error)
	// SearchSessions searches sessions by words and, with an embedding
	// model, by meaning (session.Search); notice says how it searched.
	SearchSessions func(ctx context.Context, query string) (matches []store.SessionMatch, notice string, err error)
	// BranchPrompts lists a session's prompts, to branch from one.
	BranchPrompts func(ctx context.Context, id string) ([]session.PromptRef, error)
	// Commands lists the session's slash commands, custom ones included
	// (session.Service.Commands); nil: the built-ins.
	Commands func(ctx context.Context, id string) ([]session.Command, error)
	// TrustRequests lists the project programs of the session's workspace
	// waiting for the person's trust, and AnswerTrust gives the person's
	// decision on one (app.App): the trust dialog (trust.go).
	TrustRequests func(ctx context.Context, sessionID string) ([]trust.Request, error)
	AnswerTrust   func(ctx context.Context, sessionID, requestID, decision string) error
}

// SessionInfo is what the status line shows of the session.
type SessionInfo struct {
	ID, Title, Workspace, Mode, Model string
}

// Messages the model receives from its own commands and the event pump.
type (
	eventMsg   struct{ ev event.Event }
	historyMsg struct {
		info SessionInfo
		evs  []event.Event
	}
	turnDoneMsg struct {
		res *session.TurnResult
		err error
	}
	tickMsg   struct{}
	noticeMsg struct{ text string }
	errMsg    struct{ err error }
)

// Model is the TUI's Bubble Tea model. It holds the timeline built from
// the session's events and the state of the widgets on screen; it never
// runs agent logic, only calls the session service.
type Model struct {
	ctx  context.Context
	deps Deps
	info SessionInfo
	now  func() time.Time

	tb    *timeline.Builder
	rnd   *renderer
	cache map[*timeline.Item]cached
	ver   map[int]int // per turn: bumped on each event, invalidating the cache
	live  bool        // events now arrive live (the history is loaded)

	width, height int
	dark          bool
	scroll        int // lines scrolled up from the bottom
	// follow: scroll so that the selected element (select mode) shows.
	follow    bool
	busy      bool
	busySince time.Time
	ticking   bool
	usage     *event.TokenUsage
	compacted bool

	input     *editor
	approvals *approvals
	trust     *trustDialog
	review    *reviewPanel
	picker    *picker
	help      bool
	mouse     bool
	notice    string
	quitArmed time.Time
	tickEvery time.Duration
	// lastPrompt is the last prompt sent to run now: a turn that fails
	// puts it back into an empty editor, so it is not lost.
	lastPrompt string
	// pickOnly: no session is open, only the sessions picker (olly
	// --resume without an id); closing it quits.
	pickOnly bool
	// SwitchTo is set when the person picked another session: Run
	// reopens on it after the program ends.
	SwitchTo string
}

type cached struct {
	ver, width, spin int
	expand           bool
	lines            []string
}

// Options configure a Model.
type Options struct {
	Deps Deps
	Info SessionInfo
	// Width and Height are the initial size (tests); the terminal's size
	// replaces them.
	Width, Height int
	// Dark picks the palette before the terminal answers the background
	// query (tests fix it).
	Dark bool
	// Now is the clock for elapsed times; nil is time.Now.
	Now func() time.Time
	// Task is sent as the first prompt once the history is loaded.
	Task string
	// Tick is the spinner's frame time (0: 100 ms; negative: no
	// animation, for golden tests).
	Tick time.Duration
}

// New builds the model.
func New(ctx context.Context, o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	m := &Model{ctx: ctx, deps: o.Deps, info: o.Info, now: o.Now, tb: timeline.NewBuilder(),
		cache: map[*timeline.Item]cached{}, ver: map[int]int{}, width: o.Width, height: o.Height, dark: o.Dark}
	m.tickEvery = o.Tick
	if m.tickEvery == 0 {
		m.tickEvery = 100 * time.Millisecond
	}
	if m.width == 0 {
		m.width, m.height = 80, 24
	}
	m.rnd = &renderer{md: newMarkdown(), times: map[string]*span{}}
	m.setStyles(o.Dark)
	m.input = newEditor(m)
	m.input.focus()
	m.approvals = &approvals{}
	m.trust = &trustDialog{}
	if o.Task != "" {
		m.input.pending = o.Task
	}
	m.layout()
	return m
}

// Init asks for the background colour (light or dark palette).
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.input.focus())
}

func (m *Model) setStyles(dark bool) {
	m.dark = dark
	m.rnd.st = newStyles(dark)
	m.rnd.md.setup(m.width, dark)
	m.invalidate()
}

// invalidate drops every cached item rendering.
func (m *Model) invalidate() { m.cache = map[*timeline.Item]cached{} }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setStyles(msg.IsDark())
		return m, nil
	case historyMsg:
		return m, m.loadHistory(msg)
	case eventMsg:
		return m, m.apply(msg.ev)
	case turnDoneMsg:
		return m, m.turnDone(msg)
	case tickMsg:
		return m, m.tick()
	case noticeMsg:
		m.notice = msg.text
		return m, nil
	case errMsg:
		m.notice = "error: " + msg.err.Error()
		return m, nil
	case reviewMsg:
		m.review.apply(msg)
		return m, nil
	case pickerMsg:
		if m.picker != nil {
			m.picker.load(msg)
		}
		return m, nil
	case filesMsg:
		m.input.files = msg.files
		m.input.refreshCompletion()
		return m, nil
	case pickedSessionMsg:
		m.SwitchTo = msg.id
		return m, tea.Quit
	case trustMsg:
		return m, m.setTrust(msg)
	case historyRecallMsg:
		m.input.recall(msg)
		return m, nil
	case tea.MouseWheelMsg:
		return m, m.wheel(msg)
	case tea.PasteMsg:
		return m, m.input.update(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// loadHistory shows the stored events of the session, then sends the task
// given on the command line.
func (m *Model) loadHistory(h historyMsg) tea.Cmd {
	if h.info.ID != "" {
		m.info = h.info
	}
	for _, ev := range h.evs {
		m.applyQuiet(ev)
	}
	m.live = true
	m.invalidate()
	// The trust dialog comes first: a task given on the command line
	// waits for the person's answers (setTrust sends it).
	if ask := m.fetchTrust(); ask != nil {
		return ask
	}
	if t := m.input.pending; t != "" {
		m.input.pending = ""
		return m.send(t, session.WhenBusyRefuse)
	}
	return nil
}

// apply adds a live event.
func (m *Model) apply(ev event.Event) tea.Cmd {
	m.applyQuiet(ev)
	switch p := ev.Data.(type) {
	case event.TurnStarted:
		if !m.busy {
			m.busy, m.busySince = true, m.now()
		}
		if p.Model != "" {
			m.info.Model = p.Model
		}
	case event.TurnFinished:
		m.busy = m.turnRunning()
	case event.ApprovalRequested:
		if m.live {
			m.approvals.add(p)
			m.scroll = 0
		}
	case event.ApprovalResolved:
		m.approvals.remove(p.ApprovalID)
	case event.FileChangeResult, event.KeepUndoResult, event.FilesChanged:
		if m.review != nil {
			return m.review.refresh()
		}
	case event.SessionSettings:
		if p.Model != nil {
			m.info.Model = *p.Model
		}
		if p.Mode != nil {
			m.info.Mode = string(*p.Mode)
		}
	case event.TitleChanged:
		m.info.Title = p.Title
	}
	var ask tea.Cmd
	if m.live && trustWarning(ev) {
		ask = m.fetchTrust()
	}
	if m.busy {
		return tea.Batch(ask, m.startTicking())
	}
	return ask
}

// applyQuiet applies an event to the timeline and the caches.
func (m *Model) applyQuiet(ev event.Event) {
	m.tb.Apply(ev)
	m.ver[ev.Turn]++
	switch p := ev.Data.(type) {
	case event.ToolAction:
		s := m.rnd.times[p.ActionID]
		if s == nil {
			s = &span{}
			m.rnd.times[p.ActionID] = s
		}
		switch p.Status {
		case event.ActionRunning:
			if s.start.IsZero() {
				s.start = ev.At
			}
		case event.ActionSuccess, event.ActionError:
			s.end = ev.At
		}
	case event.TokenUsage:
		u := p
		m.usage = &u
	case event.Compaction:
		m.compacted = true
	case event.FileChangeResult, event.KeepUndoResult:
		// They change a files block of an earlier turn.
		m.invalidate()
	}
}

// turnRunning reports whether the last assistant message still runs.
func (m *Model) turnRunning() bool {
	items := m.tb.Timeline().Items
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == timeline.KindAssistant {
			return items[i].Status == "running"
		}
	}
	return false
}

func (m *Model) turnDone(msg turnDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = "error: " + msg.err.Error()
	}
	if msg.res != nil && msg.res.SessionID != "" && msg.res.SessionID != m.info.ID {
		// /new: continue in the new session.
		m.SwitchTo = msg.res.SessionID
		return tea.Quit
	}
	m.busy = m.turnRunning()
	if msg.res != nil && msg.res.Status == event.FinishFailed && m.lastPrompt != "" && m.input.value() == "" {
		// A failed turn (a model without vision, a server down): the
		// prompt is back in the editor to send again.
		m.input.ta.SetValue(m.lastPrompt)
		m.notice = "the turn failed (see above): your prompt is back in the editor"
	}
	m.lastPrompt = ""
	return nil
}

// startTicking animates the spinner while the session works.
func (m *Model) startTicking() tea.Cmd {
	if m.ticking || m.tickEvery < 0 {
		return nil
	}
	m.ticking = true
	return m.tickCmd()
}

func (m *Model) tickCmd() tea.Cmd {
	return tea.Tick(m.tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) tick() tea.Cmd {
	if !m.busy {
		m.ticking = false
		return nil
	}
	m.rnd.spin++
	return m.tickCmd()
}
