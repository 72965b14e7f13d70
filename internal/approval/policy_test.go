package approval

import (
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
)

func TestPolicyRoute(t *testing.T) {
	const (
		cmd  = event.ApprovalCommand
		edit = event.ApprovalFileEdit
		dir  = event.ApprovalDirectory
	)
	tests := []struct {
		name   string
		policy Policy
		kind   string
		sev    safety.Severity
		want   Route
	}{
		{"interactive asks for a command", Policy{}, cmd, safety.None, Ask},
		{"interactive asks for an edit", Policy{}, edit, safety.Medium, Ask},
		{"auto commands approves medium", Policy{AutoApproveCommands: true}, cmd, safety.Medium, AutoApprove},
		{"auto commands approves high", Policy{AutoApproveCommands: true}, cmd, safety.High, AutoApprove},
		{"auto commands still asks critical", Policy{AutoApproveCommands: true}, cmd, safety.Critical, Ask},
		{"auto commands does not cover edits", Policy{AutoApproveCommands: true}, edit, safety.Medium, Ask},
		{"auto edits approves an edit", Policy{AutoApproveSensitiveEdits: true}, edit, safety.Medium, AutoApprove},
		{"auto edits does not cover commands", Policy{AutoApproveSensitiveEdits: true}, cmd, safety.None, Ask},
		{"auto edits still asks a critical edit", Policy{AutoApproveSensitiveEdits: true}, edit, safety.Critical, Ask},
		{"toggles never grant a directory", Policy{AutoApproveCommands: true, AutoApproveSensitiveEdits: true}, dir, safety.High, Ask},
		{"unattended denies", Policy{Unattended: true}, cmd, safety.None, AutoDeny},
		{"unattended denies an edit", Policy{Unattended: true}, edit, safety.Medium, AutoDeny},
		{"unattended yes approves high", Policy{Unattended: true, Yes: true}, cmd, safety.High, AutoApprove},
		{"unattended yes never approves a directory", Policy{Unattended: true, Yes: true}, dir, safety.High, AutoDeny},
		{"unattended toggles never approve a directory", Policy{Unattended: true, AutoApproveCommands: true, AutoApproveSensitiveEdits: true}, dir, safety.Medium, AutoDeny},
		{"interactive asks for a directory", Policy{Yes: true}, dir, safety.None, Ask},
		{"unattended yes never approves critical", Policy{Unattended: true, Yes: true}, cmd, safety.Critical, AutoDeny},
		{"unattended yes never approves a critical directory", Policy{Unattended: true, Yes: true}, dir, safety.Critical, AutoDeny},
		{"unattended toggle approves below critical", Policy{Unattended: true, AutoApproveCommands: true}, cmd, safety.High, AutoApprove},
		{"unattended toggle denies critical", Policy{Unattended: true, AutoApproveCommands: true, Yes: true}, cmd, safety.Critical, AutoDeny},
		{"yes without unattended still asks", Policy{Yes: true}, cmd, safety.Medium, Ask},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := tc.policy.Route(tc.kind, tc.sev)
			if got != tc.want {
				t.Fatalf("Route(%s, %s) = %s, want %s", tc.kind, tc.sev, got, tc.want)
			}
			if (got == AutoDeny) != (why != "") {
				t.Fatalf("reason %q for route %s: a denial needs a reason, nothing else has one", why, got)
			}
		})
	}
}
