package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// titleMax bounds a title made from the first prompt, in runes.
const titleMax = 60

// prompt runs one prompt (Prompt, without the queue): a slash command, or
// one turn of the runner.
func (s *Service) prompt(ctx context.Context, id string, in PromptInput) (*TurnResult, error) {
	if strings.TrimSpace(in.Text) == "" {
		return nil, errors.New("empty prompt: type what the agent should do")
	}
	// Every submitted prompt is kept for recall, commands included
	// (history.go); a leftover steering message was kept when sent.
	if !in.recorded {
		if err := s.recordPrompt(ctx, id, in.Text); err != nil {
			return nil, err
		}
	}
	cmd, cmds, isCmd, err := s.parseSlash(ctx, id, in.Text)
	switch {
	case err != nil:
		return nil, err
	case isCmd:
		return s.command(ctx, id, in, cmd, cmds)
	}
	in.Text = cmd.Args // the text with an escaped "//" unescaped
	return s.runTurn(ctx, id, in)
}

// runTurn runs the runner's turn for in.
func (s *Service) runTurn(ctx context.Context, id string, in PromptInput) (*TurnResult, error) {
	if s.runner == nil {
		return nil, errors.New("session service has no runner: the agent was not configured")
	}
	return s.withTurn(ctx, id, in, s.runner.RunTurn)
}

// withTurn prepares a turn of the session (one at a time; the session is
// generating meanwhile) and runs fn on it.
func (s *Service) withTurn(ctx context.Context, id string, in PromptInput, fn func(context.Context, *Turn) (*TurnResult, error)) (*TurnResult, error) {
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := s.begin(id, cancel); err != nil {
		return nil, err
	}
	defer s.end(id)

	sess, err := s.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspace(sess)
	if err != nil {
		return nil, err
	}
	evs, err := s.History(ctx, id)
	if err != nil {
		return nil, err
	}
	if in.implement {
		// The plan is read from the history this turn starts from, with
		// the session already held: nothing can move the branch between.
		if in, err = planInput(id, evs, in.FromPlan); err != nil {
			return nil, err
		}
	}
	if err := s.store.SetStatus(ctx, id, store.StatusGenerating); err != nil {
		if errors.Is(err, store.ErrSessionBusy) {
			return nil, fmt.Errorf("session %s is generating in another olly process; wait for it or abort it there: %w", id, ErrBusy)
		}
		return nil, err
	}
	t := s.newTurn(sess, ws, in, evs)
	t.steering = func() []PromptInput { return s.takeSteering(id) } // queue.go
	t.interrupts = func() bool { return s.steeringInterrupts(id) }  // queuemodes.go
	res, err := fn(turnCtx, t)
	// The turn's events were queued (emitQueued): all of them are stored
	// before the turn counts as ended.
	if ferr := s.flushEmits(id); ferr != nil && err == nil {
		err = ferr
	}
	s.saveMemory(ctx, id, res) // memory.go: the runner's session memory, for the next turn
	st := store.StatusIdle
	// A prompt refused before the turn started (nothing emitted) leaves the
	// session as it was; a turn that failed marks it.
	if (err != nil && t.started.Load()) || (res != nil && res.Status == event.FinishFailed) {
		st = store.StatusError
	}
	// The status is recorded even when the caller gave up: a session must
	// not stay "generating".
	if serr := s.store.SetStatus(context.WithoutCancel(ctx), id, st); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return res, fmt.Errorf("session %s: %w", id, err)
	}
	return res, nil
}

func (s *Service) begin(id string, cancel context.CancelFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.liveLocked(id)
	if l.cancel != nil {
		return fmt.Errorf("session %s is already working on a prompt; wait for it to finish or abort it: %w", id, ErrBusy)
	}
	l.cancel = cancel
	return nil
}

func (s *Service) end(id string) {
	s.mu.Lock()
	l := s.liveLocked(id)
	l.cancel, l.finished = nil, false
	releasedLocked(l)
	s.mu.Unlock()
}

// newTurn prepares the turn: its number follows the branch's last turn, its
// history is the branch's conversation, and its emitter titles an untitled
// session from the prompt right after the user message.
func (s *Service) newTurn(sess *store.Session, ws *workspace.Workspace, in PromptInput, evs []event.Event) *Turn {
	number := 0
	for _, ev := range evs {
		number = max(number, ev.Turn)
	}
	number++
	history := BuildConversation(evs)
	history.SetImageLoader(s.imageLoader())
	t := &Turn{SessionID: sess.ID, Number: number, Workspace: ws, Input: in, History: history,
		Mode: firstNonEmpty(in.Mode, event.Mode(sess.Mode), event.ModeAgent), Model: firstNonEmpty(in.Model, sess.Model),
		ExplorerModel: sess.ExplorerModel, Memory: sess.SessionMemory}
	t.sync = func(ctx context.Context) error { return s.syncEmits(ctx, sess.ID) }
	// Tools may emit from their own goroutines, hence the atomics.
	var titled atomic.Bool
	titled.Store(sess.Title != "")
	t.emit = func(ctx context.Context, p event.Payload) (event.Event, error) {
		if _, ok := p.(event.TurnFinished); ok {
			// Not busy any more by the time anyone sees the event (Busy).
			s.mu.Lock()
			s.liveLocked(sess.ID).finished = true
			s.mu.Unlock()
		}
		ev, err := s.emitQueued(ctx, sess.ID, number, p)
		t.started.Store(true)
		if um, ok := p.(event.UserMessage); ok && err == nil && titled.CompareAndSwap(false, true) {
			first := TitleFromPrompt(um.Text)
			if terr := s.setTitle(ctx, sess.ID, number, first); terr != nil {
				return ev, terr
			}
			s.generateTitle(sess.ID, number, um.Text, t.Model, first) // titles.go: a model-written title, in the background
		}
		return ev, err
	}
	return t
}

func (s *Service) setTitle(ctx context.Context, id string, turn int, title string) error {
	if title == "" {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // the prompt it names is stored: so is the title
	if _, err := s.store.UpdateSession(ctx, id, func(x *store.Session) error { x.Title = title; return nil }); err != nil {
		return err
	}
	_, err := s.Emit(ctx, id, turn, event.TitleChanged{Title: title})
	return err
}

// TitleFromPrompt makes a session title from a prompt: its first non-empty
// line with runs of spaces collapsed, cut at a word boundary to at most 60
// characters.
func TitleFromPrompt(text string) string {
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) <= titleMax {
		return line
	}
	r := []rune(line)[:titleMax-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > titleMax/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

func firstNonEmpty[T ~string](vs ...T) T {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
