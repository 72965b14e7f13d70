// Package tools holds the agent's tools behind one registry, and the single
// path through which a tool call runs: Execute emits the call's action
// events (pending, approval, running, success or error) in the seed's order,
// so every tool is shown the same way and nothing is shown twice.
//
// Tools whose calls may need the person's approval implement Gated: they
// describe the approval before anything happens, and Execute asks through
// Env.Approver. Each tool lives in its own file. Errors the model can fix
// (no such file, no match) are results with IsError set, not Go errors: Go
// errors are for olly's own failures. docs/tools.md describes every tool.
package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/skills"
	"github.com/olly-agent/olly/internal/workspace"
)

// Tool is one function the model can call.
type Tool interface {
	// Spec is the tool's name, description and JSON Schema, as sent to the
	// model.
	Spec() llm.Tool
	// Run performs the call. It reports progress through env.Report and
	// returns the result for the model and for display.
	Run(ctx context.Context, env *Env, args Args) (*Result, error)
}

// Result is what a tool returns.
type Result struct {
	// Content is the text the model receives.
	Content string
	// IsError marks a failure the model can act on (bad path, no match,
	// non-zero exit is not one: that is a normal result).
	IsError bool
	// Denied is set when the person refused the action; the model is told
	// not to retry it.
	Denied bool
	// Display is the action's final appearance. Execute fills GroupID,
	// ActionID, Tool and Status; the tool fills the rest (Text, Detail,
	// FilePath, StartLine, Listing, Output, Additions, Deletions,
	// CheckpointID).
	Display event.ToolAction
	// Wrote lists the workspace-relative paths the call changed.
	Wrote []string
}

// Call is one tool call to execute.
type Call struct {
	// ID is the model's call id (or one olly assigned).
	ID   string
	Name string
	Args json.RawMessage
	// GroupID and ActionID place the call's events in the timeline.
	GroupID  string
	ActionID string
}

// Outcome is an executed call: its result, already shown to the person.
type Outcome struct {
	Call   Call
	Result *Result
}

// Env is what a tool may use. Fields a frontend or issue has not provided
// yet are nil; tools must cope (and say so to the model) rather than panic.
type Env struct {
	Session   string
	Turn      int
	Workspace *workspace.Workspace
	// Emit publishes an event of this session and turn (through the
	// session service, so durable events are stored first).
	Emit func(ctx context.Context, p event.Payload) error
	// Report is bound to the current call's action; Execute sets it.
	Report *Reporter

	// Approver settles approval requests (the approval manager, which
	// applies the session's policy); nil denies whatever needs approval.
	Approver Approver
	// Shell runs terminal commands in the session's shell
	// (shell.Manager.Session); nil: run_terminal_command is unavailable.
	Shell CommandRunner
	// PrestartShell, when set, starts the session's shell in the
	// background ahead of its first command (shell.Shell.Prestart); the
	// agent calls it when a person's turn offers run_terminal_command.
	// nil where no command is expected to run sandboxed.
	PrestartShell func()
	// ArtifactDir holds the full output of truncated commands
	// (shell.Manager.ArtifactDir); read_file reads artifact://<name> there.
	ArtifactDir string
	// ToolTimeout is agent.toolTimeout, the default time limit of a
	// terminal command; zero leaves the shell's default.
	ToolTimeout time.Duration
	// FileRules are agent.sensitiveFilePatterns (nil: the defaults), and
	// SessionFileRules the session's own rules, which win over them.
	FileRules        []config.FileRule
	SessionFileRules []config.FileRule
	// Snapshots is told before every write, so checkpoints keep the
	// original; nil: no checkpoints.
	Snapshots Snapshotter
	// Diagnostics is asked after every write for the language server's
	// errors, which are appended to the result; nil: none.
	Diagnostics Diagnoser
	// Sandbox describes the kernel sandbox commands run in, for
	// run_terminal_command's approval cards; the zero value: none.
	Sandbox SandboxInfo
	// LanguageServers are the language servers of the turn's workspace,
	// used by the code-intelligence tools in preference to the ones they
	// were built with; nil: those.
	LanguageServers LanguageServers
	// Subagents runs run_subagent's sub-agents (subagent.go); the agent
	// sets it per call. Nil: run_subagent is unavailable.
	Subagents SubagentRunner
	// Skills are the turn's skills, found once at its start and shared
	// with its sub-agents; nil: the skill tool looks for them itself.
	Skills []skills.Skill
	// External supplies the tools of the turn's MCP servers; the agent
	// lists them into Extra when the mode offers them. Nil: none.
	External ToolSource
	// Extra are tools beyond the registry's for this turn (External's);
	// Execute finds a call's tool here when the registry has none.
	Extra []Tool
	// Hooks runs the person's PreToolUse and PostToolUse hooks around
	// every call (internal/hooks); nil: none.
	Hooks Hooks
	// Commands, when set, restricts run_terminal_command to read-only
	// commands that it also allows, refusing the rest instead of asking
	// (a read-only mode's terminal); nil: any command, with approvals.
	Commands *CommandPolicy
	// Todos reads the session's todo list for todo_read (todo.go); nil:
	// todo_read is unavailable.
	Todos TodoSource
}

// ToolSource supplies tools found at run time (the MCP servers of a
// workspace), connecting what it must; failures are reported through emit.
type ToolSource interface {
	Tools(ctx context.Context, session string, emit func(ctx context.Context, p event.Payload) error) []Tool
}

// CommandPolicy is a mode's rule for terminal commands (Env.Commands).
type CommandPolicy struct {
	// Mode names the mode in refusals ("review").
	Mode string
	// Allow returns why command may not run in the mode ("" when it may);
	// it is asked first, and the command must then also be read-only
	// (safety.ReadOnly with no finding, judged where it would run).
	Allow func(command string) string
}

// Approver settles an approval request: *approval.Manager.
type Approver interface {
	Request(ctx context.Context, emit approval.Emit, req approval.Request) (approval.Decision, error)
}

// SandboxInfo says what confines commands on this machine.
type SandboxInfo struct {
	// Active: a kernel sandbox confines commands; Mechanism names it
	// ("landlock", "seatbelt"). Network: the workspace-write sandbox
	// allows TCP (sandbox.network).
	Active    bool
	Mechanism string
	Network   bool
}

// CommandRunner runs a command in a session's shell: *shell.Shell.
type CommandRunner interface {
	Run(ctx context.Context, command string, opts shell.RunOptions) (*shell.Result, error)
}

// Snapshotter keeps a file's original before the agent writes it, for
// checkpoints (keep / undo).
type Snapshotter interface {
	// BeforeWrite is called before every write of p (p.Info is nil for a
	// file about to be created), with the directories the write will
	// create, outermost first. It is called for every write; keeping only
	// the first snapshot of a file in a run is the implementation's job.
	// It returns the checkpoint the write belongs to. An error stops the
	// write: an edit that could not be undone is not made.
	BeforeWrite(ctx context.Context, p workspace.Path, newDirs []string) (checkpointID string, err error)
}

// Diagnoser reports a written file's problems (language servers).
type Diagnoser interface {
	// AfterWrite returns the file's error diagnostics as text for the
	// model, or "" when there are none.
	AfterWrite(ctx context.Context, p workspace.Path) (string, error)
}

// Describer is implemented by tools that can say what a call is about to
// do before it runs ("Reading main.go"); Execute shows it while running.
type Describer interface {
	Describe(args Args) event.ToolAction
}
