package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// terminalTool is the tool a person's command runs through, so its
// safety analysis, approval and display are the agent's own.
const terminalTool = "run_terminal_command"

// CommandRun is a command the person ran in a session's shell.
type CommandRun struct {
	// Turn is the session turn that records it.
	Turn int
	// Command is the command as run (as edited at approval, if it was).
	Command string
	// Result is how the shell ran it; nil when it did not run (denied,
	// canceled before it started, refused).
	Result *shell.Result
	// Denied is set when an approval refused it; Content then says why.
	Denied bool
	// Content is the text recorded for the model (the output, or why the
	// command did not run).
	Content string
	// Status is the turn's finish status (event.Finish*).
	Status string
}

// RunCommand runs a command the person typed (RPC "bash", a "!command"
// line) in the session's shell — where cwd and exported variables persist
// between the agent's commands and the person's — as a turn of its own: the
// command goes through run_terminal_command's safety analysis and approval
// rules like the agent's (auto-approve toggles and critical-always-asks
// included), its output streams as tool_output, and its result is recorded
// for the model, which sees it with the next prompt. Canceling ctx stops
// the command (its process group is killed). It fails with
// session.ErrBusy while the session runs a prompt.
func (a *App) RunCommand(ctx context.Context, sessionID, command string) (*CommandRun, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil, errors.New("empty command: give the shell command to run")
	}
	out := &CommandRun{Command: command}
	in := session.PromptInput{Text: "!" + command, Mode: "bash"}
	res, err := a.Sessions.RunAction(ctx, sessionID, in, func(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
		return a.runCommandTurn(ctx, t, command, out)
	})
	if err != nil {
		return nil, err
	}
	if res != nil {
		out.Turn, out.Status = res.Turn, res.Status
	}
	return out, nil
}

// runCommandTurn records the command's turn: the person's line, the tool
// action with its approval and output, the result for the model, the end.
func (a *App) runCommandTurn(ctx context.Context, t *session.Turn, command string, out *CommandRun) (*session.TurnResult, error) {
	keep := context.WithoutCancel(ctx)
	emit := func(ctx context.Context, p event.Payload) error { _, err := t.Emit(ctx, p); return err }
	if err := emit(keep, event.TurnStarted{Mode: "bash"}); err != nil {
		return nil, err
	}
	um := event.UserMessage{Text: "!" + command, Content: "I ran this command in the workspace's terminal myself:\n$ " + command}
	if err := emit(keep, um); err != nil {
		return nil, err
	}
	env, err := a.toolEnv(ctx, t)
	if err != nil {
		return a.failCommand(keep, t, err)
	}
	rec := &recordingShell{CommandRunner: env.Shell}
	env.Shell = rec
	env.Session, env.Turn, env.Workspace, env.Emit = t.SessionID, t.Number, t.Workspace, emit
	args, _ := json.Marshal(map[string]any{"command": command, "timeout": int(commandTimeout / time.Second)})
	group := fmt.Sprintf("cmd%d", t.Number)
	if err := emit(keep, event.ProgressGroupStart{GroupID: group, Title: "Your command"}); err != nil {
		return nil, err
	}
	o := a.Tools.Execute(ctx, &env, tools.Call{ID: group, Name: terminalTool, Args: args, GroupID: group, ActionID: group + "-1"})
	if err := emit(keep, event.ToolResult{ToolName: terminalTool, Content: o.Result.Content, IsError: o.Result.IsError}); err != nil {
		return nil, err
	}
	if err := emit(keep, event.ProgressGroupFinish{GroupID: group}); err != nil {
		return nil, err
	}
	out.Result, out.Denied, out.Content = rec.result(), o.Result.Denied, o.Result.Content
	if out.Result != nil {
		out.Command = out.Result.Command
	}
	status := event.FinishDone
	if ctx.Err() != nil {
		status = event.FinishCanceled
	}
	if err := emit(keep, event.TurnFinished{Status: status}); err != nil {
		return nil, err
	}
	return &session.TurnResult{Turn: t.Number, Status: status}, nil
}

// failCommand ends a command turn that could not run at all.
func (a *App) failCommand(ctx context.Context, t *session.Turn, cause error) (*session.TurnResult, error) {
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
