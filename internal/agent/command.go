package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/tools"
)

// commandTimeout bounds a command the person runs (RunCommand): longer
// than the agent's, since the person chose to wait for it, and it can be
// stopped at any time by canceling.
const commandTimeout = 10 * time.Minute

// toolTerminal is the tool a person's command runs through.
const toolTerminal = "run_terminal_command"

// RunCommand implements session.CommandRunner: a command the person typed
// runs as a turn of its own through run_terminal_command — its safety
// analysis, approval rules (auto-approve toggles and critical-always-asks
// included) and display are the agent's own — and its output streams as
// tool_output. The turn records the person's line, the tool action, the
// result for the model, and the end.
func (a *Agent) RunCommand(ctx context.Context, t *session.Turn, command string) (*session.TurnResult, error) {
	ctx, _ = a.pin(ctx) // setup.go
	keep := context.WithoutCancel(ctx)
	emit := func(ctx context.Context, p event.Payload) error { _, err := t.Emit(ctx, p); return err }
	if err := emit(keep, event.TurnStarted{Mode: event.ModeBash}); err != nil {
		return nil, err
	}
	um := event.UserMessage{Text: "!" + command, Content: "I ran this command in the workspace's terminal myself:\n$ " + command}
	if err := emit(keep, um); err != nil {
		return nil, err
	}
	if a.toolEnv == nil {
		return failCommand(keep, t, errors.New("the agent has no tool environment"))
	}
	env, err := a.toolEnv(ctx, t)
	if err != nil {
		return failCommand(keep, t, err)
	}
	rec := &recordingShell{CommandRunner: env.Shell}
	env.Shell = rec
	env.Session, env.Turn, env.Workspace, env.Emit = t.SessionID, t.Number, t.Workspace, emit
	args, _ := json.Marshal(map[string]any{"command": command, "timeout": int(commandTimeout / time.Second)})
	group := fmt.Sprintf("cmd%d", t.Number)
	if err := emit(keep, event.ProgressGroupStart{GroupID: group, Title: "Your command"}); err != nil {
		return nil, err
	}
	o := a.tools.Execute(ctx, &env, tools.Call{ID: group, Name: toolTerminal, Args: args, GroupID: group, ActionID: group + "-1"})
	if err := emit(keep, event.ToolResult{ToolName: toolTerminal, Content: o.Result.Content, IsError: o.Result.IsError}); err != nil {
		return nil, err
	}
	if err := emit(keep, event.ProgressGroupFinish{GroupID: group}); err != nil {
		return nil, err
	}
	status := event.FinishDone
	if ctx.Err() != nil {
		status = event.FinishCanceled
	}
	if err := emit(keep, event.TurnFinished{Status: status}); err != nil {
		return nil, err
	}
	return &session.TurnResult{Turn: t.Number, Status: status, Shell: commandOutcome(command, rec.result(), o.Result)}, nil
}

// commandOutcome is what the person is told about their command.
func commandOutcome(command string, r *shell.Result, res *tools.Result) *session.CommandOutcome {
	out := &session.CommandOutcome{Command: command, ExitCode: -1, Denied: res.Denied, Content: res.Content}
	if r == nil {
		return out
	}
	out.Command, out.Ran = r.Command, true
	out.Output, out.ExitCode, out.TimedOut, out.Canceled = r.Output, r.ExitCode, r.TimedOut, r.Canceled
	out.Artifact, out.Rejected = r.Artifact, r.Rejected
	return out
}

// failCommand ends a command turn that could not run at all.
func failCommand(ctx context.Context, t *session.Turn, cause error) (*session.TurnResult, error) {
	if _, err := t.Emit(ctx, event.Error{Message: cause.Error()}); err != nil {
		return nil, err
	}
	if _, err := t.Emit(ctx, event.TurnFinished{Status: event.FinishFailed, Error: cause.Error()}); err != nil {
		return nil, err
	}
	return &session.TurnResult{Turn: t.Number, Status: event.FinishFailed, Error: cause.Error()}, nil
}

// recordingShell is the session's shell, keeping the result of the
// command it ran, which the tool result only describes in text.
type recordingShell struct {
	tools.CommandRunner
	mu   sync.Mutex
	last *shell.Result
}

// Run implements tools.CommandRunner.
func (r *recordingShell) Run(ctx context.Context, command string, opts shell.RunOptions) (*shell.Result, error) {
	if r.CommandRunner == nil {
		return nil, errors.New("this session has no shell")
	}
	res, err := r.CommandRunner.Run(ctx, command, opts)
	r.mu.Lock()
	r.last = res
	r.mu.Unlock()
	return res, err
}

// Cwd is the shell's directory, which the safety analysis resolves paths
// against.
func (r *recordingShell) Cwd() string {
	if s, ok := r.CommandRunner.(interface{ Cwd() string }); ok {
		return s.Cwd()
	}
	return ""
}

func (r *recordingShell) result() *shell.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}
