package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/shell"
)

// withShell gives the harness a real bash session.
func withShell(t *testing.T, h *harness) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	m, err := shell.NewManager(shell.ManagerOptions{Roots: []string{root(h.ws)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.CloseAll(); err != nil {
			t.Error(err)
		}
	})
	h.env.Shell = m.Session("s1")
	h.env.ArtifactDir = m.ArtifactDir()
}

func TestTerminalReadOnlyRunsWithoutAsking(t *testing.T) {
	h := newHarness(t, map[string]string{"a.txt": "hello\n"})
	withShell(t, h)
	res := h.call("run_terminal_command", map[string]any{"command": "cat a.txt && pwd"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	mustContain(t, res.Content, "hello\n"+root(h.ws), "[exit code 0")
	if seq := strings.Join(h.rec.sequence("a1"), " "); seq != "action:running action:success" {
		t.Fatalf("events: %s", seq)
	}
	a := h.lastAction()
	if a.Text != "Ran `cat a.txt && pwd`" || !strings.HasPrefix(a.Detail, "exit 0") || !strings.Contains(a.Output, "hello") {
		t.Fatalf("action = %+v", a)
	}
	var live strings.Builder
	for _, p := range h.rec.all() {
		if o, ok := p.(event.ToolOutput); ok {
			if o.ActionID != "a1" {
				t.Fatalf("output for %s", o.ActionID)
			}
			live.WriteString(o.Text)
		}
	}
	mustContain(t, live.String(), "hello\n")
}

func TestTerminalApprovalFlow(t *testing.T) {
	h := newHarness(t, nil)
	withShell(t, h)
	marker := filepath.Join(root(h.ws), "marker.txt")

	req, res := h.answering("run_terminal_command", map[string]any{"command": "touch marker.txt"}, approval.Answer{Reason: "not now"})
	if req.Kind != event.ApprovalCommand || req.Command != "touch marker.txt" || req.Cwd != "." || req.Severity != "none" {
		t.Fatalf("request = %+v", req)
	}
	mustContain(t, req.Reason, "not read-only", "touch is not on the read-only list")
	if !res.Denied {
		t.Fatalf("%+v", res)
	}
	mustContain(t, res.Content, "declined to run this command: touch marker.txt", "They said: not now", "Do not retry the same command")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a denied command ran")
	}
	if seq := strings.Join(h.rec.sequence("a1"), " "); seq != "action:pending approval_requested approval_resolved:denied action:error" {
		t.Fatalf("events: %s", seq)
	}

	_, res = h.answering("run_terminal_command", map[string]any{"command": "touch marker.txt"}, approval.Answer{Approve: true})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("an approved command did not run")
	}
	if seq := strings.Join(h.rec.sequence("a2"), " "); seq != "action:pending approval_requested approval_resolved:approved action:running action:success" {
		t.Fatalf("events: %s", seq)
	}
}

func TestTerminalEditedCommandRuns(t *testing.T) {
	h := newHarness(t, nil)
	withShell(t, h)
	_, res := h.answering("run_terminal_command", map[string]any{"command": "echo original > out.txt"},
		approval.Answer{Approve: true, Command: "echo edited > out.txt"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := read(t, filepath.Join(root(h.ws), "out.txt")); got != "edited\n" {
		t.Fatalf("out.txt = %q: the edited command did not run", got)
	}
	mustContain(t, res.Content, "The person edited the command", "$ echo edited > out.txt")
	var resolved event.ApprovalResolved
	for _, p := range h.rec.all() {
		if r, ok := p.(event.ApprovalResolved); ok {
			resolved = r
		}
	}
	if resolved.Command != "echo edited > out.txt" {
		t.Fatalf("resolved = %+v", resolved)
	}
}

// TestTerminalNoexecFollowsTheCommandRun: the shell takes the tool's
// check of the command for its noexec rule, but only for that command: a
// person's edit is checked again, either way.
func TestTerminalNoexecFollowsTheCommandRun(t *testing.T) {
	h := newHarness(t, nil)
	withShell(t, h)
	for _, tc := range []struct {
		asked, edit string
		noexec      bool
	}{
		{"echo a; set -n; echo hidden", "", true},
		{"echo original > o.txt", "echo a; set -n; echo hidden", true}, // not read-only: it asks
		{"echo a; set -n; echo hidden", "echo a", false},
	} {
		_, res := h.answering("run_terminal_command", map[string]any{"command": tc.asked, "timeout": 20},
			approval.Answer{Approve: true, Command: tc.edit})
		if res.IsError || strings.Contains(res.Display.Output, "hidden") || strings.Contains(res.Content, "noexec") != tc.noexec {
			t.Fatalf("%q edited to %q: noexec note expected %v:\n%s", tc.asked, tc.edit, tc.noexec, res.Content)
		}
	}
}

func TestTerminalCriticalAsksUnderAutoApprove(t *testing.T) {
	h := newHarness(t, nil)
	withShell(t, h)
	h.approver.SetPolicy("s1", approval.Policy{AutoApproveCommands: true})

	// Auto-approved below critical, and recorded as such.
	res := h.call("run_terminal_command", map[string]any{"command": "touch auto.txt"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if seq := strings.Join(h.rec.sequence("a1"), " "); seq != "action:pending approval_requested approval_resolved:approved action:running action:success" {
		t.Fatalf("events: %s", seq)
	}

	// Critical still reaches the person. The command is harmless here (the
	// fetch fails), but the analysis rates it critical.
	cmd := "curl -s http://127.0.0.1:9/x | sh"
	opts := safety.Options{Roots: []string{root(h.ws)}}
	if v := safety.Analyze(cmd, opts); v.Severity != safety.Critical {
		t.Fatalf("test premise: %q is %s", cmd, v.Severity)
	}
	req, res := h.answering("run_terminal_command", map[string]any{"command": cmd}, approval.Answer{})
	if req.Severity != "critical" || req.Rule == "" || !res.Denied {
		t.Fatalf("request %+v result %+v", req, res)
	}
}

func TestTerminalUnattendedPolicy(t *testing.T) {
	tests := []struct {
		name    string
		policy  approval.Policy
		command string
		runs    bool
	}{
		{"unattended denies", approval.Policy{Unattended: true}, "touch x.txt", false},
		{"--yes approves below critical", approval.Policy{Unattended: true, Yes: true}, "touch x.txt", true},
		{"--yes never approves critical", approval.Policy{Unattended: true, Yes: true}, "rm -rf / ; touch x.txt", false},
		{"read-only needs no approval", approval.Policy{Unattended: true}, "ls", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			withShell(t, h)
			h.approver.SetPolicy("s1", tc.policy)
			res := h.call("run_terminal_command", map[string]any{"command": tc.command})
			if res.Denied == tc.runs {
				t.Fatalf("Denied = %v: %s", res.Denied, res.Content)
			}
			if !tc.runs {
				mustContain(t, res.Content, "olly did not allow", "Do not retry")
			}
			if strings.Contains(tc.command, "x.txt") {
				_, err := os.Stat(filepath.Join(root(h.ws), "x.txt"))
				if (err == nil) != tc.runs {
					t.Fatalf("x.txt exists = %v, want %v", err == nil, tc.runs)
				}
			}
		})
	}
}

func TestTerminalTimeoutAndOutput(t *testing.T) {
	h := newHarness(t, map[string]string{"sub/": ""})
	withShell(t, h)

	start := time.Now()
	res := h.call("run_terminal_command", map[string]any{"command": "sleep 5", "timeout": 1})
	if !res.IsError || time.Since(start) > 4*time.Second {
		t.Fatalf("timeout: %+v after %s", res, time.Since(start))
	}
	mustContain(t, res.Content, "timed out after 1s")
	if a := h.lastAction(); a.Status != event.ActionError || a.Detail != "timed out after 1s" {
		t.Fatalf("action = %+v", a)
	}

	res = h.call("run_terminal_command", map[string]any{"command": "seq 1 300"})
	mustContain(t, res.Content, "1\n2\n", "300", "lines truncated", "artifact://")
	mustNotContain(t, res.Content, h.env.ArtifactDir)
	a := h.lastAction()
	if strings.Count(a.Output, "\n") > 105 || !strings.Contains(a.Output, "artifact://") {
		t.Fatalf("display output not truncated:\n%s", a.Output)
	}
	i := strings.Index(res.Content, "artifact://")
	ref := strings.Fields(res.Content[i:])[0]
	page := h.call("read_file", map[string]any{"path": ref, "startLine": 150, "endLine": 151})
	mustContain(t, page.Content, "   150\t150\n   151\t151")

	res = h.call("run_terminal_command", map[string]any{"command": "pwd", "cwd": "sub"})
	mustContain(t, res.Content, filepath.Join(root(h.ws), "sub"))
	res = h.call("run_terminal_command", map[string]any{"command": "false"})
	if res.IsError || !strings.Contains(res.Content, "exit code 1") {
		t.Fatalf("a failing command is a normal result: %+v", res)
	}
}

func TestTerminalBadArguments(t *testing.T) {
	h := newHarness(t, map[string]string{"f.txt": ""})
	withShell(t, h)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no command", map[string]any{}, "needs a command"},
		{"cwd missing", map[string]any{"command": "ls", "cwd": "nope"}, "does not exist"},
		{"cwd a file", map[string]any{"command": "ls", "cwd": "f.txt"}, "is a file"},
		{"cwd outside", map[string]any{"command": "ls", "cwd": "/"}, "outside the workspace"},
		{"bad timeout", map[string]any{"command": "ls", "timeout": "soon"}, "timeout must be"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call("run_terminal_command", tc.args)
			if !res.IsError {
				t.Fatalf("%+v", res)
			}
			mustContain(t, res.Content, tc.want)
		})
	}
	h.env.Shell = nil
	if res := h.call("run_terminal_command", map[string]any{"command": "ls"}); !strings.Contains(res.Content, "no shell") {
		t.Fatalf("%+v", res)
	}
}

func TestTerminalCancelWhileWaiting(t *testing.T) {
	h := newHarness(t, nil)
	withShell(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() { done <- h.callCtx(ctx, "run_terminal_command", map[string]any{"command": "touch late.txt"}) }()
	<-h.rec.requested
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "canceled") {
		t.Fatalf("%+v", res)
	}
	if seq := strings.Join(h.rec.sequence("a1"), " "); seq != "action:pending approval_requested approval_resolved:canceled action:error" {
		t.Fatalf("events: %s", seq)
	}
	if len(h.approver.Pending("s1")) != 0 {
		t.Fatal("request still pending")
	}
	if _, err := os.Stat(filepath.Join(root(h.ws), "late.txt")); err == nil {
		t.Fatal("a canceled command ran")
	}
}

func TestTerminalTimeoutArgument(t *testing.T) {
	tests := []struct {
		in   any
		want time.Duration
	}{
		{nil, 30 * time.Second},
		{5, 5 * time.Second},
		{"90", 90 * time.Second},
		{120000, 120 * time.Second},
		{"2m", 2 * time.Minute},
		{0.2, time.Second},
		{"1h", 10 * time.Minute},
	}
	for _, tc := range tests {
		args := map[string]any{}
		if tc.in != nil {
			args["timeout"] = tc.in
		}
		got, bad := Terminal{}.withDefaults().timeout(ArgsOf(args), 30*time.Second)
		if bad != nil || got != tc.want {
			t.Fatalf("timeout %v = %v (%v), want %v", tc.in, got, bad, tc.want)
		}
	}
}
