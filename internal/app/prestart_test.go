package app

import (
	"testing"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
)

// TestPrestartShellPolicy: the session's shell is started ahead of the
// first command unless no command that changes something could run
// (print mode without a terminal, without --yes, outside auto mode).
func TestPrestartShellPolicy(t *testing.T) {
	a := &App{}
	for name, c := range map[string]struct {
		p    approval.Policy
		want bool
	}{
		"interactive":                  {approval.Policy{}, true},
		"unattended, ask":              {approval.Policy{Unattended: true, Mode: event.ApprovalModeAsk, Sandboxed: true}, false},
		"unattended, auto, no sandbox": {approval.Policy{Unattended: true, Mode: event.ApprovalModeAuto}, false},
		"unattended, auto":             {approval.Policy{Unattended: true, Mode: event.ApprovalModeAuto, Sandboxed: true}, true},
		"unattended, --yes":            {approval.Policy{Unattended: true, Yes: true}, true},
		"unattended, auto-approve":     {approval.Policy{Unattended: true, AutoApproveCommands: true}, true},
	} {
		if got := a.prestartShell(nil, c.p, nil) != nil; got != c.want {
			t.Errorf("%s: prestart %v, want %v", name, got, c.want)
		}
	}
}
