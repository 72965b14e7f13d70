package approval

import (
	"context"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
)

func TestRouteRequestModesAndEscalation(t *testing.T) {
	auto := Policy{Mode: event.ApprovalModeAuto, Sandboxed: true}
	escalate := func(sev safety.Severity) Request {
		r := command("s1", "make deploy", sev)
		r.Sandbox = &event.CommandSandbox{Policy: event.SandboxUnsandboxed, Active: true, Escalation: "needs ~/.ssh"}
		return r
	}
	tests := []struct {
		name   string
		policy Policy
		req    Request
		want   Route
	}{
		{"auto runs medium without asking", auto, command("s1", "go test ./...", safety.Medium), AutoApprove},
		{"auto runs none without asking", auto, command("s1", "make", safety.None), AutoApprove},
		{"auto asks high", auto, command("s1", "rm -rf build", safety.High), Ask},
		{"auto asks critical", auto, command("s1", "rm -rf /", safety.Critical), Ask},
		{"auto does not cover edits", auto, Request{Kind: event.ApprovalFileEdit, FilePath: "x", Severity: safety.Medium}, Ask},
		{"auto without a sandbox asks", Policy{Mode: event.ApprovalModeAuto}, command("s1", "make", safety.Medium), Ask},
		{"ask mode asks medium", Policy{Mode: event.ApprovalModeAsk, Sandboxed: true}, command("s1", "make", safety.Medium), Ask},
		{"escalation asks even medium in auto", auto, escalate(safety.Medium), Ask},
		{"escalation is never auto-approved by the toggle", Policy{AutoApproveCommands: true, Sandboxed: true}, escalate(safety.None), Ask},
		{"escalation is never approved by --yes", Policy{Unattended: true, Yes: true, Sandboxed: true}, escalate(safety.Medium), AutoDeny},
		{"without a sandbox there is nothing to escape: --yes approves", Policy{Unattended: true, Yes: true},
			Request{Kind: event.ApprovalCommand, Command: "make", Severity: safety.High, Sandbox: &event.CommandSandbox{Policy: event.SandboxUnsandboxed}}, AutoApprove},
		{"--yes still approves high sandboxed", Policy{Unattended: true, Yes: true, Mode: event.ApprovalModeAuto, Sandboxed: true}, command("s1", "rm -rf build", safety.High), AutoApprove},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := tc.policy.RouteRequest(tc.req)
			if got != tc.want {
				t.Fatalf("RouteRequest = %s, want %s", got, tc.want)
			}
			if (got == AutoDeny) != (why != "") {
				t.Fatalf("reason %q for route %s", why, got)
			}
		})
	}
}

func TestEffectiveMode(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{}, event.ApprovalModeAsk},
		{Policy{Mode: event.ApprovalModeAuto}, event.ApprovalModeAsk},
		{Policy{Mode: event.ApprovalModeAuto, Sandboxed: true}, event.ApprovalModeAuto},
		{Policy{Mode: event.ApprovalModeAsk, Sandboxed: true}, event.ApprovalModeAsk},
	} {
		if got := tc.p.EffectiveMode(); got != tc.want {
			t.Errorf("%+v.EffectiveMode() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestOutsideSandboxOnlyFromAPerson(t *testing.T) {
	t.Run("auto approval never runs outside", func(t *testing.T) {
		m := NewManager(Options{Default: Policy{AutoApproveCommands: true, Mode: event.ApprovalModeAuto, Sandboxed: true}})
		rec := newRecorder()
		d, err := m.Request(context.Background(), rec.emit, command("s1", "make", safety.Medium))
		if err != nil || !d.Approved() || d.OutsideSandbox {
			t.Fatalf("decision %+v, %v: want approved inside the sandbox", d, err)
		}
		if ev := rec.all()[0].(event.ApprovalRequested); ev.Mode != event.ApprovalModeAuto {
			t.Fatalf("requested mode %q, want auto", ev.Mode)
		}
	})
	t.Run("person chooses outside", func(t *testing.T) {
		m := NewManager(Options{NewID: counter()})
		rec := newRecorder()
		req := command("s1", "ssh-add -l", safety.High)
		req.Sandbox = &event.CommandSandbox{Policy: event.SandboxWorkspaceWrite, Active: true, Mechanism: "landlock"}
		res := ask(context.Background(), m, rec, req)
		ev := rec.next(t)
		if ev.Sandbox == nil || ev.Sandbox.Policy != event.SandboxWorkspaceWrite || !ev.Sandbox.Active {
			t.Fatalf("requested sandbox %+v, want the workspace-write sandbox on the card", ev.Sandbox)
		}
		if err := m.Answer("s1", ev.ApprovalID, Answer{Approve: true, OutsideSandbox: true}); err != nil {
			t.Fatal(err)
		}
		r := waitResult(t, res)
		if !r.d.OutsideSandbox || r.d.Auto {
			t.Fatalf("decision %+v, want a person's approval outside the sandbox", r.d)
		}
		if got := rec.all()[1].(event.ApprovalResolved); !got.OutsideSandbox {
			t.Fatalf("resolved %+v, want outsideSandbox", got)
		}
	})
	t.Run("approving an escalation runs outside", func(t *testing.T) {
		m := NewManager(Options{NewID: counter()})
		rec := newRecorder()
		req := command("s1", "cat ~/.ssh/config", safety.None)
		req.Sandbox = &event.CommandSandbox{Policy: event.SandboxUnsandboxed, Active: true, Escalation: "read my ssh config"}
		res := ask(context.Background(), m, rec, req)
		ev := rec.next(t)
		if err := m.Answer("s1", ev.ApprovalID, Answer{Approve: true}); err != nil {
			t.Fatal(err)
		}
		if r := waitResult(t, res); !r.d.OutsideSandbox {
			t.Fatalf("decision %+v, want outside the sandbox", r.d)
		}
	})
	t.Run("only commands", func(t *testing.T) {
		m := NewManager(Options{NewID: counter()})
		rec := newRecorder()
		res := ask(context.Background(), m, rec, Request{Session: "s1", Kind: event.ApprovalFileEdit, FilePath: "x", Severity: safety.Medium})
		ev := rec.next(t)
		if err := m.Answer("s1", ev.ApprovalID, Answer{Approve: true, OutsideSandbox: true}); err == nil {
			t.Fatal("an edit approved outside the sandbox: want an error")
		}
		m.CancelSession("s1")
		waitResult(t, res)
	})
}
