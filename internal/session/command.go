package session

import (
	"context"
	"errors"
	"strings"

	"github.com/olly-agent/olly/internal/event"
)

// CommandRunner runs a command the person typed as a turn: the agent does,
// through the same tool runner, safety analysis and approval rules as its
// own run_terminal_command. It emits every event of the turn through t.Emit,
// from turn_started to turn_finished, and returns the outcome in
// TurnResult.Shell.
type CommandRunner interface {
	RunCommand(ctx context.Context, t *Turn, command string) (*TurnResult, error)
}

// CommandOutcome is how a command the person ran went (TurnResult.Shell).
type CommandOutcome struct {
	// Command is the command as run (as edited at approval, if it was).
	Command string
	// Ran is false when the command never ran (denied, refused, canceled
	// before it started); Content then says why.
	Ran bool
	// Output is stdout and stderr as written (truncated for the model; the
	// whole text is in Artifact when it was cut).
	Output   string
	ExitCode int
	TimedOut bool
	Canceled bool
	Artifact string
	// Rejected says why the shell refused the command, when it did.
	Rejected string
	// Denied is set when an approval refused it.
	Denied bool
	// Content is the text recorded for the model: the output, or why the
	// command did not run.
	Content string
}

// RunCommand runs a command the person typed (RPC "bash", a "!command"
// line) in the session's shell — where cwd and exported variables persist
// between the agent's commands and the person's — as a turn of its own,
// run by the runner like any turn: its events are stored and published
// through Emit, prompts sent meanwhile queue behind it, and its result is
// recorded for the model, which sees it with the next prompt. Canceling
// ctx (or Abort) stops the command. It fails with ErrBusy while the
// session runs a prompt.
func (s *Service) RunCommand(ctx context.Context, id, command string) (*TurnResult, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil, errors.New("empty command: give the shell command to run")
	}
	cr, ok := s.runner.(CommandRunner)
	if !ok {
		return nil, errors.New("session service cannot run commands: the agent was not configured")
	}
	in := PromptInput{Text: "!" + command, Mode: event.ModeBash}
	return s.RunAction(ctx, id, in, func(ctx context.Context, t *Turn) (*TurnResult, error) {
		return cr.RunCommand(ctx, t, command)
	})
}
