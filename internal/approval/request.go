package approval

import (
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
)

// Request describes an action that may need the person's approval.
type Request struct {
	// Session and ActionID place the request: the session whose policy
	// applies, and the tool action it belongs to.
	Session  string
	ActionID string
	// Kind is event.ApprovalCommand, event.ApprovalFileEdit or
	// event.ApprovalDirectory.
	Kind string
	// Command and Cwd describe a command.
	Command string
	Cwd     string
	// FilePath is the file of an edit or the directory to allow; Diff is
	// the edit as a unified diff.
	FilePath string
	Diff     string
	// Tool and Arguments (JSON text) describe a tool call
	// (event.ApprovalTool: an MCP server's tool).
	Tool      string
	Arguments string
	// Severity decides the route (see Policy.Route).
	Severity safety.Severity
	// Reason is one sentence for the approval card; Rule and Words name
	// the safety finding behind it, when there is one.
	Reason string
	Rule   string
	Words  []string
	// Sandbox says where the command runs if approved (commands only; nil
	// for other kinds). Policy event.SandboxUnsandboxed means the model
	// asked to run it outside the sandbox: only a person grants that, so
	// such a request always asks (see Policy.RouteRequest).
	Sandbox *event.CommandSandbox
}

// Escalates reports whether r asks to run a command outside an active
// sandbox. (Where no sandbox works nothing confines commands anyway, and
// the request is routed by its severity alone.)
func (r Request) Escalates() bool {
	return escalates(r.Sandbox)
}

func escalates(s *event.CommandSandbox) bool {
	return s != nil && s.Active && s.Policy == event.SandboxUnsandboxed
}

func (r Request) check() error {
	switch r.Kind {
	case event.ApprovalCommand:
		if r.Command == "" {
			return errors.New("approval: a command request needs the command")
		}
	case event.ApprovalFileEdit, event.ApprovalDirectory:
		if r.FilePath == "" {
			return fmt.Errorf("approval: a %s request needs the path", r.Kind)
		}
	case event.ApprovalTool:
		if r.Tool == "" {
			return errors.New("approval: a tool request needs the tool's name")
		}
	default:
		return fmt.Errorf("approval: unknown request kind %q (want %s, %s, %s or %s)",
			r.Kind, event.ApprovalCommand, event.ApprovalFileEdit, event.ApprovalDirectory, event.ApprovalTool)
	}
	if r.Sandbox != nil && r.Kind != event.ApprovalCommand {
		return fmt.Errorf("approval: a %s request cannot carry a sandbox (commands only)", r.Kind)
	}
	if r.Severity < safety.None || r.Severity > safety.Critical {
		return fmt.Errorf("approval: invalid severity %d", int(r.Severity))
	}
	return nil
}

func (r Request) event(id, mode string) event.ApprovalRequested {
	return event.ApprovalRequested{
		ApprovalID: id, ActionID: r.ActionID, Kind: r.Kind,
		Command: r.Command, Cwd: r.Cwd, FilePath: r.FilePath, Diff: r.Diff, Tool: r.Tool, Arguments: r.Arguments,
		Severity: r.Severity.String(), Reason: r.Reason, Rule: r.Rule, Words: r.Words,
		Mode: mode, Sandbox: r.Sandbox,
	}
}

// Answer is a person's reply to a request, sent by a frontend.
type Answer struct {
	// Approve approves; false denies.
	Approve bool
	// Command, when approving a command request, is the command as the
	// person edited it; it runs instead of the requested one. Empty or
	// unchanged means the command as requested.
	Command string
	// Reason is the person's note on a denial, passed to the model.
	Reason string
	// OutsideSandbox, when approving a command, runs it outside the
	// sandbox ("run outside the sandbox" on the card).
	OutsideSandbox bool
}

// Decision is how a request was settled.
type Decision struct {
	ApprovalID string
	// Outcome is event.DecisionApproved, DecisionDenied or
	// DecisionCanceled.
	Outcome string
	// Auto is true when the policy answered (an auto-approve toggle,
	// --yes, or an unattended denial) rather than the person.
	Auto bool
	// Command is the edited command to run instead of the requested one;
	// "" when the person did not change it.
	Command string
	// Reason is the person's note on a denial, or why the policy denied.
	Reason string
	// OutsideSandbox is true when the person approved running the command
	// outside the sandbox. An automatic approval never sets it.
	OutsideSandbox bool
}

// Approved reports whether the action may go ahead.
func (d Decision) Approved() bool { return d.Outcome == event.DecisionApproved }

func (d Decision) event(kind string) event.ApprovalResolved {
	return event.ApprovalResolved{
		ApprovalID: d.ApprovalID, Kind: kind, Decision: d.Outcome,
		AutoApproved: d.Auto && d.Approved(), Command: d.Command, Reason: d.Reason,
		OutsideSandbox: d.OutsideSandbox,
	}
}

// ErrNotPending is returned by Answer for a request that is not waiting:
// unknown, of another session, or already answered or canceled.
var ErrNotPending = errors.New("approval: no such pending request")
