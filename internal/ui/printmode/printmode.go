// Package printmode is olly's one-shot frontend (olly -p "task"): it runs
// one turn, shows its progress, answers approvals at the terminal when
// there is one, and prints the final answer. It renders events and calls
// the session service; it holds no agent logic.
package printmode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// Output formats.
const (
	OutputText = "text"
	OutputJSON = "json"
)

// Exit codes of a print-mode run.
const (
	ExitDone        = 0
	ExitFailed      = 1
	ExitInterrupted = 130
)

// Sessions is what print mode needs from the session service.
type Sessions interface {
	Subscribe(ctx context.Context, id string, afterSeq int64) (*session.Subscription, error)
	Prompt(ctx context.Context, id string, in session.PromptInput) (*session.TurnResult, error)
}

// Approvals answers approval requests.
type Approvals interface {
	Answer(session, approvalID string, a approval.Answer) error
}

// Options configure one run.
type Options struct {
	Sessions  Sessions
	Approvals Approvals
	SessionID string
	// AfterSeq is the last stored event of the session before this run
	// (0 for a new session): only newer events are shown.
	AfterSeq int64
	Input    session.PromptInput
	// Output is OutputText or OutputJSON.
	Output string
	// Stdout receives the final answer (text) or every event (json).
	Stdout io.Writer
	// Stderr receives progress (text output, only when Progress is set)
	// and errors.
	Stderr io.Writer
	// Progress shows the agent's work on Stderr (it is a terminal).
	Progress bool
	// Color allows ANSI colour in progress output.
	Color bool
	// Terminal, when non-nil, is where approvals are asked (the
	// controlling terminal). Nil: nobody can answer, and the approval
	// policy (unattended, --yes) decides.
	Terminal io.ReadWriter
}

// Run runs one turn and returns the process exit code: 0 when the agent
// finished, 1 when it failed or stopped short of finishing (an error, or
// the iteration limit), 130 when interrupted. The error is for failures
// before the turn could start.
func Run(ctx context.Context, opts Options) (int, error) {
	if opts.Output == "" {
		opts.Output = OutputText
	}
	// The subscription must outlive ctx: after an interrupt the turn
	// still emits how it ended, and that must be shown.
	subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSub()
	sub, err := opts.Sessions.Subscribe(subCtx, opts.SessionID, opts.AfterSeq)
	if err != nil {
		return ExitFailed, err
	}
	defer sub.Close()

	r := newRenderer(opts)
	// Finishing stops the wait for further events at once, even when the
	// turn's last event arrived before Prompt returned.
	subCtx, r.stopWait = context.WithCancel(subCtx)
	if r.term != nil {
		defer r.term.close()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var renderErr error
	go func() {
		defer wg.Done()
		renderErr = r.loop(subCtx, ctx, sub)
	}()

	res, err := opts.Sessions.Prompt(ctx, opts.SessionID, opts.Input)
	if err != nil {
		stopSub()
		wg.Wait()
		if ctx.Err() != nil && res == nil {
			// Interrupted before the turn began: nothing ran.
			if r.enc == nil {
				fmt.Fprintln(opts.Stderr, r.style.bad("interrupted:")+" before the task started; nothing was done")
			}
			return ExitInterrupted, nil
		}
		return ExitFailed, err
	}
	// The turn's last event is turn_finished; the renderer stops there.
	r.expectTurn(res.Turn)
	wg.Wait()
	if renderErr != nil && !errors.Is(renderErr, context.Canceled) {
		return ExitFailed, renderErr
	}
	return r.finish(res), nil
}

// renderer shows events as they arrive.
type renderer struct {
	opts  Options
	style style
	term  *terminal

	mu       sync.Mutex
	turn     int // the turn to wait for; 0 until Prompt returned
	finished map[int]bool
	done     chan struct{}
	stopWait context.CancelFunc
	enc      *json.Encoder
	files    map[string]event.ChangedFile
	order    []string
	plan     bool // the turn ended with a plan: finish says how to implement it
}

func newRenderer(opts Options) *renderer {
	r := &renderer{opts: opts, style: newStyle(opts.Color), finished: map[int]bool{}, done: make(chan struct{}),
		files: map[string]event.ChangedFile{}}
	if opts.Output == OutputJSON {
		r.enc = json.NewEncoder(opts.Stdout)
	}
	if opts.Terminal != nil {
		r.term = newTerminal(opts.Terminal)
	}
	return r
}

// expectTurn tells the renderer which turn to wait for.
func (r *renderer) expectTurn(turn int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turn = turn
	if r.finished[turn] {
		r.closeDone()
	}
}

func (r *renderer) closeDone() {
	select {
	case <-r.done:
	default:
		close(r.done)
		r.stopWait()
	}
}

// loop renders until the expected turn finished or subCtx ends. runCtx is
// the run's own context, which an interrupt cancels: a prompt for approval
// in progress is abandoned then.
func (r *renderer) loop(subCtx, runCtx context.Context, sub *session.Subscription) error {
	for {
		ev, err := sub.Next(subCtx)
		if err != nil {
			select {
			case <-r.done:
				return nil // the expected turn finished
			default:
				return err
			}
		}
		if err := r.show(runCtx, ev); err != nil {
			return err
		}
		if _, ok := ev.Data.(event.TurnFinished); ok {
			r.mu.Lock()
			r.finished[ev.Turn] = true
			if r.turn == ev.Turn {
				r.closeDone()
			}
			r.mu.Unlock()
		}
		select {
		case <-r.done:
			return nil
		default:
		}
	}
}

// show renders one event.
func (r *renderer) show(ctx context.Context, ev event.Event) error {
	if r.enc != nil {
		if err := r.enc.Encode(ev); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
	}
	switch p := ev.Data.(type) {
	case event.ApprovalRequested:
		r.approval(ctx, ev.Session, p)
	case event.FilesChanged:
		r.noteFiles(p)
	case event.FinalMessage:
		r.plan = p.Plan && p.Text != ""
	case event.Error:
		if r.enc == nil {
			fmt.Fprintf(r.opts.Stderr, "%s %s\n", r.style.bad("error:"), p.Message)
		}
	}
	if r.enc == nil && r.opts.Progress {
		r.progress(ev)
	}
	return nil
}

// approval answers a request at the terminal, or leaves it to the policy
// when there is no terminal (the manager has already decided then).
func (r *renderer) approval(ctx context.Context, sessionID string, p event.ApprovalRequested) {
	if r.term == nil || r.opts.Approvals == nil {
		return
	}
	ans, err := r.term.ask(ctx, r.style, p)
	if err != nil {
		return // interrupted: the turn's cancellation settles the request
	}
	if err := r.opts.Approvals.Answer(sessionID, p.ApprovalID, ans); err != nil && !errors.Is(err, approval.ErrNotPending) {
		fmt.Fprintf(r.opts.Stderr, "%s could not answer the approval: %v\n", r.style.bad("error:"), err)
	}
}

func (r *renderer) noteFiles(p event.FilesChanged) {
	for _, f := range p.Files {
		if _, ok := r.files[f.Path]; !ok {
			r.order = append(r.order, f.Path)
		}
		r.files[f.Path] = f
	}
}

// finish prints the answer and returns the exit code.
func (r *renderer) finish(res *session.TurnResult) int {
	if r.enc == nil {
		if res.FinalText != "" {
			fmt.Fprintln(r.opts.Stdout, res.FinalText)
		}
		if r.opts.Progress && len(r.order) > 0 {
			fmt.Fprintln(r.opts.Stderr, r.style.dim("Changed files (review with `olly changes`):"))
			for _, path := range r.order {
				f := r.files[path]
				fmt.Fprintf(r.opts.Stderr, "  %s %s\n", path, r.style.stats(f.Additions, f.Deletions))
			}
		}
		if r.opts.Progress && r.plan && res.Status == event.FinishDone {
			fmt.Fprintln(r.opts.Stderr, r.style.dim("Implement this plan with: olly -p --continue /implement"))
		}
	}
	switch res.Status {
	case event.FinishDone:
		return ExitDone
	case event.FinishCanceled:
		if r.enc == nil {
			fmt.Fprintln(r.opts.Stderr, r.style.bad("interrupted:")+" the turn was canceled; what it did so far is kept (see `olly changes`)")
		}
		return ExitInterrupted
	case event.FinishMaxIterations:
		if r.enc == nil {
			fmt.Fprintln(r.opts.Stderr, r.style.bad("stopped:")+" the agent reached agent.maxIterations before it finished (raise it with --max-iterations)")
		}
		return ExitFailed
	}
	if r.enc == nil && res.Error != "" {
		fmt.Fprintf(r.opts.Stderr, "%s %s\n", r.style.bad("failed:"), res.Error)
	}
	return ExitFailed
}
