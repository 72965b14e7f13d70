package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
)

// WhenBusy is what Submit does with a prompt that arrives while the
// session is running one (seed 002, "streamingBehavior").
type WhenBusy string

// The busy behaviours.
const (
	// WhenBusyRefuse refuses it with ErrBusy.
	WhenBusyRefuse WhenBusy = ""
	// WhenBusySteer gives it to the running turn: the agent reads it at
	// its next iteration boundary (Turn.TakeSteering), after the current
	// tool batch. A turn that ends first leaves it to run as the next
	// turn.
	WhenBusySteer WhenBusy = "steer"
	// WhenBusyFollowUp runs it as a turn of its own once the running
	// turn (and the follow-ups queued before it) ended.
	WhenBusyFollowUp WhenBusy = "follow_up"
)

// busyRetry bounds how long a follow-up waits for the session while
// something other than a prompt holds it for a moment (a branch, a
// rename): it polls every busyPoll.
const (
	busyRetry = 5 * time.Second
	busyPoll  = 20 * time.Millisecond
)

// queue holds the prompts submitted while an admitted prompt runs: steering
// messages for its turn and follow-ups for after it. It exists from the
// moment Submit admits a prompt until its last follow-up ended, so a prompt
// sent at any moment in between is queued, never refused or lost.
// Guarded by Service.mu.
type queue struct {
	steer  []PromptInput
	follow []PromptInput
}

// QueueCounts says how many messages wait for a session's running prompt.
type QueueCounts struct {
	Steer    int `json:"steer"`
	FollowUp int `json:"followUp"`
}

// Total is the number of waiting messages.
func (c QueueCounts) Total() int { return c.Steer + c.FollowUp }

// Submission is a prompt Submit accepted: either queued behind the running
// one (Queued is set, and there is nothing to run) or admitted to run now,
// which holds the session until Run returns.
type Submission struct {
	s  *Service
	id string
	in PromptInput
	q  *queue // the queue this submission owns; nil when it was queued
	// Queued is WhenBusySteer or WhenBusyFollowUp when the prompt was
	// queued behind the running one; "" when it was admitted.
	Queued WhenBusy
}

// Prompt runs one prompt of the session and returns how its turn ended;
// the turn's events are published as they happen. It fails with ErrBusy
// while the session runs another prompt, and with the runner's error when
// the prompt was refused before the turn started. Canceling ctx (or Abort)
// cancels the turn, which still ends with turn_finished. Follow-ups queued
// while it runs (Submit) run after it, before Prompt returns.
//
// A prompt that starts with a slash command (/plan, /review, /compact,
// /new, …; see Commands) is handled here, below every frontend: a mode
// command runs the rest of the prompt in that mode, the others act on the
// session. An unknown /word is an error listing the commands; "//" at the
// start sends a literal slash.
func (s *Service) Prompt(ctx context.Context, id string, in PromptInput) (*TurnResult, error) {
	sub, err := s.Submit(ctx, id, in, WhenBusyRefuse)
	if err != nil {
		return nil, err
	}
	return sub.Run(ctx)
}

// Submit accepts a prompt without running it, so a frontend can answer at
// once and run the turn in its own goroutine. When the session is idle the
// prompt is admitted: the returned Submission holds the session, and the
// caller must call its Run (or Release). While another admitted prompt
// runs, whenBusy decides: WhenBusySteer and WhenBusyFollowUp queue it
// (Queued says which) and WhenBusyRefuse fails with ErrBusy. A prompt that
// could never run (empty, an unknown slash command, a command used to
// steer) is refused here, before anything is queued.
func (s *Service) Submit(ctx context.Context, id string, in PromptInput, whenBusy WhenBusy) (*Submission, error) {
	if strings.TrimSpace(in.Text) == "" {
		return nil, errors.New("empty prompt: type what the agent should do")
	}
	_, _, isCmd, err := s.parseSlash(ctx, id, in.Text)
	switch {
	case err != nil:
		return nil, err
	case whenBusy != WhenBusyRefuse && whenBusy != WhenBusySteer && whenBusy != WhenBusyFollowUp:
		return nil, fmt.Errorf("unknown busy behaviour %q: use %q, %q or none", whenBusy, WhenBusySteer, WhenBusyFollowUp)
	}
	s.mu.Lock()
	l := s.liveLocked(id)
	if q := l.queue; q != nil {
		err := s.enqueue(q, id, in, whenBusy, isCmd)
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		// Queued prompts are what the person typed too (history.go); a
		// follow-up is recorded when it runs, through prompt.
		if whenBusy == WhenBusySteer {
			if err := s.recordPrompt(ctx, id, in.Text); err != nil {
				s.logger().Warn("record a steering message in the prompt history", "session", id, "error", err)
			}
		}
		return &Submission{s: s, id: id, in: in, Queued: whenBusy}, nil
	}
	if l.cancel != nil {
		// Held by something that takes no messages (an ImplementPlan
		// turn, a branch in progress).
		s.mu.Unlock()
		return nil, fmt.Errorf("session %s is busy; wait for it to finish or abort it: %w", id, ErrBusy)
	}
	q := &queue{}
	l.queue = q
	s.mu.Unlock()
	return &Submission{s: s, id: id, in: in, q: q}, nil
}

// enqueue adds in to q as whenBusy says. Called with s.mu held.
func (s *Service) enqueue(q *queue, id string, in PromptInput, whenBusy WhenBusy, isCmd bool) error {
	switch whenBusy {
	case WhenBusySteer:
		if isCmd {
			return fmt.Errorf("a /command cannot steer a running turn: queue it as a follow-up, or send it when session %s is idle", id)
		}
		in.recorded = true // Submit records it now: a leftover must not be recorded again
		q.steer = append(q.steer, in)
	case WhenBusyFollowUp:
		q.follow = append(q.follow, in)
	default:
		return fmt.Errorf("session %s is already working on a prompt; wait for it to finish, abort it, or queue this one (steer or follow-up): %w", id, ErrBusy)
	}
	return nil
}

// Run runs an admitted prompt, then every follow-up queued meanwhile, each
// as a turn of its own, and the steering messages no turn took. It returns
// the admitted prompt's result; the follow-ups are seen through their
// events. A turn that ends canceled (Abort, or ctx) drops what is still
// queued: those messages were meant for the work that was stopped. For a
// queued submission Run does nothing and returns nil, nil.
func (x *Submission) Run(ctx context.Context) (*TurnResult, error) {
	return x.run(ctx, func(ctx context.Context) (*TurnResult, error) { return x.s.prompt(ctx, x.id, x.in) })
}

// RunAction runs fn as a turn of the session, in is its input: for what a
// frontend does that is a turn but not the agent's (a command the person
// runs in the session's shell). It holds the session like an admitted
// prompt — so prompts sent meanwhile queue behind it — and runs the
// follow-ups queued meanwhile after it. fn emits every event of the turn
// through t.Emit, from turn_started to turn_finished.
func (s *Service) RunAction(ctx context.Context, id string, in PromptInput, fn func(context.Context, *Turn) (*TurnResult, error)) (*TurnResult, error) {
	sub, err := s.Submit(ctx, id, in, WhenBusyRefuse)
	if err != nil {
		return nil, err
	}
	return sub.run(ctx, func(ctx context.Context) (*TurnResult, error) { return s.withTurn(ctx, id, in, fn) })
}

// run runs first, then what was queued behind it.
func (x *Submission) run(ctx context.Context, first func(context.Context) (*TurnResult, error)) (*TurnResult, error) {
	if x.q == nil {
		return nil, nil
	}
	res, err := first(ctx)
	canceled := res != nil && res.Status == event.FinishCanceled
	for {
		next, ok := x.s.nextQueued(x.id, x.q, canceled || ctx.Err() != nil)
		if !ok {
			return res, err
		}
		fres, ferr := x.s.promptWhenFree(ctx, x.id, next)
		if ferr != nil {
			x.s.reportFollowUp(ctx, x.id, res, next, ferr)
		}
		canceled = fres != nil && fres.Status == event.FinishCanceled
	}
}

// Release gives up an admitted submission without running it: the session
// is free again, and anything queued behind it meanwhile is dropped.
func (x *Submission) Release() {
	if x.q == nil {
		return
	}
	x.s.mu.Lock()
	x.s.dropQueueLocked(x.id, x.q)
	x.s.mu.Unlock()
}

// nextQueued pops the next prompt of q: leftover steering messages first
// (they were sent before any follow-up was due), then follow-ups. With
// drop, or when q is empty, it releases the session instead — under the
// same lock Submit queues under, so nothing slips in between.
func (s *Service) nextQueued(id string, q *queue, drop bool) (PromptInput, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !drop {
		if len(q.steer) > 0 {
			in := q.steer[0]
			q.steer = q.steer[1:]
			return in, true
		}
		if len(q.follow) > 0 {
			var in PromptInput
			in, q.follow = takeFollowUps(q.follow, s.queueModesLocked(id).FollowUp) // queuemodes.go
			return in, true
		}
	}
	s.dropQueueLocked(id, q)
	return PromptInput{}, false
}

// promptWhenFree runs a follow-up, waiting a moment while something that
// is not a prompt (a branch, a rename) holds the session.
func (s *Service) promptWhenFree(ctx context.Context, id string, in PromptInput) (*TurnResult, error) {
	deadline := time.Now().Add(busyRetry)
	for {
		res, err := s.prompt(ctx, id, in)
		if !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(busyPoll):
		}
	}
}

// reportFollowUp tells the person a queued prompt could not run, in the
// turn of the prompt it was queued behind (nobody waits for its result).
func (s *Service) reportFollowUp(ctx context.Context, id string, first *TurnResult, in PromptInput, err error) {
	turn := 0
	if first != nil {
		turn = first.Turn
	}
	msg := fmt.Sprintf("The queued prompt %q was not run: %v", TitleFromPrompt(in.Text), err)
	if _, eerr := s.Emit(context.WithoutCancel(ctx), id, turn, event.Error{Message: msg, Kind: "follow_up"}); eerr != nil {
		s.logger().Warn("report a follow-up that was not run", "session", id, "error", err, "emitError", eerr)
	}
}

// Queued returns how many messages wait for the session's running prompt.
func (s *Service) Queued(id string) QueueCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueLocked(id)
	if q == nil {
		return QueueCounts{}
	}
	return QueueCounts{Steer: len(q.steer), FollowUp: len(q.follow)}
}

// ClearQueue drops the messages waiting for the session's running prompt
// and returns them (a frontend may put them back into its editor).
func (s *Service) ClearQueue(id string) []PromptInput {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueLocked(id)
	if q == nil {
		return nil
	}
	out := append(append([]PromptInput(nil), q.steer...), q.follow...)
	q.steer, q.follow = nil, nil
	return out
}

// takeSteering pops the steering messages queued for the session.
func (s *Service) takeSteering(id string) []PromptInput {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueLocked(id)
	if q == nil || len(q.steer) == 0 {
		return nil
	}
	if s.queueModesLocked(id).Steering == QueueOneAtATime {
		out := q.steer[:1:1]
		q.steer = q.steer[1:]
		return out
	}
	out := q.steer
	q.steer = nil
	return out
}

// TakeSteering records the steering messages queued for the turn's
// session (Submit with WhenBusySteer) as user_message events of this turn,
// in the order they were sent, and returns them. The agent calls it at
// every iteration boundary, after the continuation, so the person's words
// are the last thing the model reads before its next response. Messages
// sent after the turn's last boundary run as the next turn.
func (t *Turn) TakeSteering(ctx context.Context) ([]event.UserMessage, error) {
	if t.steering == nil {
		return nil, nil
	}
	var out []event.UserMessage
	for _, in := range t.steering() {
		um := event.UserMessage{Text: in.Text, Steering: true}
		if _, err := t.Emit(ctx, um); err != nil {
			return out, fmt.Errorf("record a steering message: %w", err)
		}
		out = append(out, um)
	}
	return out, nil
}
