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
// The toggles cover only their own kind: a directory outside the workspace
// is granted only by an answer (or --yes when unattended).
func (p Policy) Route(kind string, sev safety.Severity) (route Route, reason string) {
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
