// Package approval is the one place where olly asks the person before a
// risky step: it decides from a session's policy whether a request needs
// an answer at all, records every request and its answer as events
// (approval_requested, then approval_resolved — auto-approvals included, so
// history shows what ran without asking), waits for a frontend to answer,
// and settles requests as canceled when their turn is aborted.
//
// It does not know what a command or an edit is: tools describe the action
// (kind, severity, command or diff) and act on the Decision.
package approval

import (
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
)

// Policy is how a session answers approvals without asking. The zero value
// asks for everything.
type Policy struct {
	// AutoApproveCommands approves terminal commands below critical
	// without asking (the seed's auto_approve_commands toggle).
	AutoApproveCommands bool `json:"autoApproveCommands"`
	// AutoApproveSensitiveEdits approves edits of sensitive files below
	// critical without asking (auto_approve_sensitive_edits).
	AutoApproveSensitiveEdits bool `json:"autoApproveSensitiveEdits"`
	// Unattended says no person can answer: print mode without a
	// terminal. What would ask is denied instead, unless Yes.
	Unattended bool `json:"unattended"`
	// Yes (--yes) approves, when Unattended, what would ask up to high
	// severity. Critical is never approved without a person.
	Yes bool `json:"yes"`
	// Mode is approval.mode: event.ApprovalModeAuto runs commands up to
	// medium without asking, in the workspace-write sandbox, when
	// Sandboxed; event.ApprovalModeAsk (and "") asks for every command not
	// judged read-only.
	Mode string `json:"mode,omitempty"`
	// Sandboxed says a kernel sandbox confines commands on this machine.
	// Without one, auto mode falls back to asking.
	Sandboxed bool `json:"sandboxed,omitempty"`
}

// EffectiveMode is the approval mode that applies: "auto" only when the
// setting asks for it and a sandbox confines what runs without asking.
func (p Policy) EffectiveMode() string {
	if p.Mode == event.ApprovalModeAuto && p.Sandboxed {
		return event.ApprovalModeAuto
	}
	return event.ApprovalModeAsk
}

// RouteRequest decides what happens to req: Route for its kind and
// severity, except that a command the model asked to run outside the
// sandbox always needs a person (auto-approve toggles, auto mode and
// --yes never grant it), and that in auto mode commands up to medium run
// (sandboxed) without asking.
func (p Policy) RouteRequest(req Request) (route Route, reason string) {
	if req.Escalates() {
		if p.Unattended {
			return AutoDeny, "olly is running without a person to ask, and only a person can let a command run outside the sandbox, even with --yes"
		}
		return Ask, ""
	}
	if req.Kind == event.ApprovalCommand && req.Severity <= safety.Medium && p.EffectiveMode() == event.ApprovalModeAuto {
		return AutoApprove, ""
	}
	return p.Route(req.Kind, req.Severity)
}

// Route is what a policy does with a request.
type Route int

// The routes.
const (
	// Ask waits for the person's answer.
	Ask Route = iota
	// AutoApprove approves without asking, and records that it did.
	AutoApprove
	// AutoDeny denies without asking: nobody is there to answer.
	AutoDeny
)

func (r Route) String() string {
	switch r {
	case Ask:
		return "ask"
	case AutoApprove:
		return "auto-approve"
	case AutoDeny:
		return "auto-deny"
	}
	return fmt.Sprintf("route(%d)", int(r))
}

// Route decides what happens to a request of kind (event.Approval*) and
// severity sev. reason explains an AutoDeny to the model and the person.
//
// Critical always reaches a person, even with auto-approve on (seed 000,
// "Approval Decision"), and is never approved unattended, even with --yes.
// The toggles cover only their own kind, and a directory outside the
// workspace is granted only by a person's answer: never by a toggle, never
// by --yes (--add-dir and workspace.extraRoots widen it in advance).
func (p Policy) Route(kind string, sev safety.Severity) (route Route, reason string) {
	if kind == event.ApprovalDirectory {
		// Only a person widens the workspace: a model steered by hostile
		// repository content must not reach files outside it because the
		// run was started with --yes or a toggle is on.
		if p.Unattended {
			return AutoDeny, "olly is running without a person to ask, and only a person may let it read or write outside the workspace, even with --yes; rerun with --add-dir DIR to include the directory"
		}
		return Ask, ""
	}
	if sev >= safety.Critical {
		if p.Unattended {
			return AutoDeny, "olly is running without a person to ask, and critical actions are never approved without one, even with --yes"
		}
		return Ask, ""
	}
	switch {
	case kind == event.ApprovalCommand && p.AutoApproveCommands:
		return AutoApprove, ""
	case kind == event.ApprovalFileEdit && p.AutoApproveSensitiveEdits:
		return AutoApprove, ""
	}
	if !p.Unattended {
		return Ask, ""
	}
	if p.Yes {
		return AutoApprove, ""
	}
	return AutoDeny, "olly is running without a person to ask (print mode without a terminal), so actions that need approval are denied; rerun with --yes to approve them up to high severity"
}
