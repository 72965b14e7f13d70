package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/workspace"
)

// snapshots records BeforeWrite calls.
type snapshots struct {
	calls []snapshotCall
	err   error
}

type snapshotCall struct {
	rel     string
	existed bool
	newDirs []string
}

func (s *snapshots) BeforeWrite(_ context.Context, p workspace.Path, newDirs []string) (string, error) {
	s.calls = append(s.calls, snapshotCall{p.Rel, p.Exists(), newDirs})
	return "ckpt_1", s.err
}

type diagnoser string

func (d diagnoser) AfterWrite(context.Context, workspace.Path) (string, error) { return string(d), nil }

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileCreates(t *testing.T) {
	h := newHarness(t, nil)
	snap := &snapshots{}
	h.env.Snapshots = snap
	res := h.call("write_file", map[string]any{"path": "a/b/c.go", "content": "package c\n\nfunc C() {}\n"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := read(t, filepath.Join(root(h.ws), "a/b/c.go")); got != "package c\n\nfunc C() {}\n" {
		t.Fatalf("content %q", got)
	}
	if res.Content != "Created a/b/c.go (+3 −0); created 2 directories" {
		t.Fatalf("content = %q", res.Content)
	}
	want := []string{filepath.Join(root(h.ws), "a"), filepath.Join(root(h.ws), "a/b")}
	if len(snap.calls) != 1 || snap.calls[0].rel != "a/b/c.go" || snap.calls[0].existed || strings.Join(snap.calls[0].newDirs, ",") != strings.Join(want, ",") {
		t.Fatalf("snapshots = %+v", snap.calls)
	}
	a := h.lastAction()
	if a.Status != event.ActionSuccess || a.Text != "Created c.go" || a.Detail != "+3 −0" || a.FilePath != "a/b/c.go" ||
		a.CheckpointID != "ckpt_1" || a.Additions != 3 || a.Deletions != 0 {
		t.Fatalf("action = %+v", a)
	}
	if len(res.Wrote) != 1 || res.Wrote[0] != "a/b/c.go" {
		t.Fatalf("Wrote = %v", res.Wrote)
	}
	// No approval for an ordinary file, and the order is running → success.
	if seq := strings.Join(h.rec.sequence("a1"), " "); seq != "action:running action:success" {
		t.Fatalf("events: %s", seq)
	}
}

func TestWriteFileDiffStats(t *testing.T) {
	tests := []struct {
		name       string
		old, new   string
		adds, dels int
	}{
		{"append a line", "a\nb\n", "a\nb\nc\n", 1, 0},
		{"change a line", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"delete two", "a\nb\nc\nd\n", "a\nd\n", 0, 2},
		{"no final newline", "a\nb", "a\nb\n", 1, 1},
		{"replace all", "x\ny\n", "1\n2\n3\n", 3, 2},
		{"empty to text", "", "one\ntwo\n", 2, 0},
		{"text to empty", "one\ntwo\n", "", 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, map[string]string{"f.txt": "x"})
			p := filepath.Join(root(h.ws), "f.txt")
			if err := os.WriteFile(p, []byte(tc.old), 0o644); err != nil {
				t.Fatal(err)
			}
			res := h.call("write_file", map[string]any{"path": "f.txt", "content": tc.new})
			if res.IsError {
				t.Fatal(res.Content)
			}
			a := h.lastAction()
			if a.Additions != tc.adds || a.Deletions != tc.dels {
				t.Fatalf("+%d −%d, want +%d −%d", a.Additions, a.Deletions, tc.adds, tc.dels)
			}
			mustContain(t, res.Content, diffStat(tc.adds, tc.dels))
			if read(t, p) != tc.new {
				t.Fatal("content not written")
			}
		})
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	h := newHarness(t, map[string]string{"run.sh": "#!/bin/sh\necho old\n"})
	p := filepath.Join(root(h.ws), "run.sh")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root(h.ws), "link.sh")
	if err := os.Symlink("run.sh", link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(p)
	res := h.call("write_file", map[string]any{"path": "link.sh", "content": "#!/bin/sh\necho new\n"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v, want 0750", after.Mode().Perm())
	}
	if os.SameFile(before, after) {
		t.Fatal("the file was rewritten in place, not replaced atomically")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("writing through a link replaced the link")
	}
	if read(t, p) != "#!/bin/sh\necho new\n" {
		t.Fatal("target not written")
	}
	entries, _ := os.ReadDir(root(h.ws))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".olly-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileRefusals(t *testing.T) {
	h := newHarness(t, map[string]string{"dir/": "", "main.go": "package main\n"})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no path", map[string]any{"content": "x"}, "needs a path"},
		{"no content", map[string]any{"path": "x.go"}, "needs content"},
		{"a directory", map[string]any{"path": "dir", "content": "x"}, "is a directory"},
		{"below a file", map[string]any{"path": "main.go/x", "content": "x"}, "is a file"},
		{"unchanged", map[string]any{"path": "main.go", "content": "package main\n"}, "already has exactly this content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call("write_file", tc.args)
			mustContain(t, res.Content, tc.want)
		})
	}
}

func TestWriteFileSensitiveAsksWithDiff(t *testing.T) {
	h := newHarness(t, map[string]string{".env": "A=1\nB=2\n"})
	p := filepath.Join(root(h.ws), ".env")

	req, res := h.answering("write_file", map[string]any{"path": ".env", "content": "A=1\nB=3\n"}, approval.Answer{Reason: "keep B"})
	if req.Kind != event.ApprovalFileEdit || req.FilePath != ".env" || req.Severity != "medium" || req.Rule != "**/.env*" {
		t.Fatalf("request = %+v", req)
	}
	mustContain(t, req.Diff, "--- a/.env\n+++ b/.env\n", "-B=2\n", "+B=3\n", " A=1\n")
	if !res.Denied || read(t, p) != "A=1\nB=2\n" {
		t.Fatalf("denied edit: %+v, file %q", res, read(t, p))
	}
	mustContain(t, res.Content, "declined the edit of .env", "They said: keep B", "Do not retry")
	if seq := strings.Join(h.rec.sequence("a1"), " "); seq != "action:pending approval_requested approval_resolved:denied action:error" {
		t.Fatalf("events: %s", seq)
	}

	_, res = h.answering("write_file", map[string]any{"path": ".env", "content": "A=1\nB=3\n"}, approval.Answer{Approve: true})
	if res.IsError || read(t, p) != "A=1\nB=3\n" {
		t.Fatalf("approved edit: %+v", res)
	}
	if seq := strings.Join(h.rec.sequence("a2"), " "); seq != "action:pending approval_requested approval_resolved:approved action:running action:success" {
		t.Fatalf("events: %s", seq)
	}
}

func TestWriteFileRules(t *testing.T) {
	tests := []struct {
		name    string
		global  []config.FileRule
		session []config.FileRule
		path    string
		asks    bool
	}{
		{"default rules leave code alone", nil, nil, "main.go", false},
		{"default rules ask for go.mod", nil, nil, "go.mod", true},
		{"session rule wins", nil, []config.FileRule{{Pattern: "**/go.mod", Action: config.FileAuto}}, "go.mod", false},
		{"session rule adds", nil, []config.FileRule{{Pattern: "**/*.sql", Action: config.FileAsk}}, "db/schema.sql", true},
		{"custom global without catch-all asks", []config.FileRule{{Pattern: "**/*.md", Action: config.FileAuto}}, nil, "main.go", true},
		{".git always asks", nil, []config.FileRule{{Pattern: "**/*", Action: config.FileAuto}}, ".git/hooks/pre-commit", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.env.FileRules, h.env.SessionFileRules = tc.global, tc.session
			h.approver.SetPolicy("s1", approval.Policy{Unattended: true}) // asking = denied, no waiting
			res := h.call("write_file", map[string]any{"path": tc.path, "content": "x\n"})
			if res.Denied != tc.asks {
				t.Fatalf("Denied = %v, want asks %v: %s", res.Denied, tc.asks, res.Content)
			}
			_, err := os.Stat(filepath.Join(root(h.ws), tc.path))
			if (err == nil) == tc.asks {
				t.Fatalf("written = %v, want %v", err == nil, !tc.asks)
			}
		})
	}
}

func TestWriteFileAutoApprovedIsRecorded(t *testing.T) {
	h := newHarness(t, map[string]string{"package.json": "{}\n"})
	h.approver.SetPolicy("s1", approval.Policy{AutoApproveSensitiveEdits: true})
	res := h.call("write_file", map[string]any{"path": "package.json", "content": "{\"name\":\"x\"}\n"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	var resolved *event.ApprovalResolved
	for _, p := range h.rec.all() {
		if r, ok := p.(event.ApprovalResolved); ok {
			resolved = &r
		}
	}
	if resolved == nil || !resolved.AutoApproved || resolved.Decision != event.DecisionApproved {
		t.Fatalf("resolved = %+v", resolved)
	}
}

func TestWriteFileOutsideAllowsTheDirectory(t *testing.T) {
	h := newHarness(t, nil)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "new", "x.txt")
	req, res := h.answering("write_file", map[string]any{"path": target, "content": "hi\n"}, approval.Answer{Approve: true})
	if req.Kind != event.ApprovalDirectory || req.FilePath != outside || req.Severity != "critical" || req.Rule != "outside-workspace" {
		t.Fatalf("request = %+v", req)
	}
	mustContain(t, req.Diff, "+hi")
	if res.IsError || read(t, target) != "hi\n" {
		t.Fatalf("%+v", res)
	}
	if got := h.ws.Allowed(); len(got) != 1 || got[0] != outside {
		t.Fatalf("allowed = %v", got)
	}
}

func TestWriteFileChangedWhileWaiting(t *testing.T) {
	h := newHarness(t, map[string]string{".env": "A=1\n"})
	p := filepath.Join(root(h.ws), ".env")
	done := make(chan *Result, 1)
	go func() { done <- h.call("write_file", map[string]any{"path": ".env", "content": "A=2\n"}) }()
	req := <-h.rec.requested
	if err := os.WriteFile(p, []byte("A=person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.approver.Answer("s1", req.ApprovalID, approval.Answer{Approve: true}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "changed while the edit waited") {
		t.Fatalf("%+v", res)
	}
	if read(t, p) != "A=person\n" {
		t.Fatal("the person's edit was overwritten")
	}
}

func TestWriteFileHooks(t *testing.T) {
	h := newHarness(t, map[string]string{"main.go": "package main\n"})
	h.env.Diagnostics = diagnoser("main.go:3:1: undefined: x")
	res := h.call("write_file", map[string]any{"path": "main.go", "content": "package main\n\nx\n"})
	mustContain(t, res.Content, "Wrote main.go (+2 −0)\n\n[Auto-diagnostics]\nmain.go:3:1: undefined: x")

	h.env.Snapshots = &snapshots{err: errors.New("disk full")}
	res = h.call("write_file", map[string]any{"path": "main.go", "content": "package other\n"})
	if !res.IsError || !strings.Contains(res.Content, "disk full") {
		t.Fatalf("%+v", res)
	}
	if read(t, filepath.Join(root(h.ws), "main.go")) != "package main\n\nx\n" {
		t.Fatal("written although the snapshot failed")
	}
}

func TestWriteFileWithoutApproverDenies(t *testing.T) {
	h := newHarness(t, map[string]string{".env": "A=1\n"})
	h.env.Approver = nil
	res := h.call("write_file", map[string]any{"path": ".env", "content": "A=2\n"})
	if !res.Denied || read(t, filepath.Join(root(h.ws), ".env")) != "A=1\n" {
		t.Fatalf("%+v", res)
	}
}

// Only a person widens the workspace: --yes (unattended) and the
// auto-approve toggles never let a file tool read or write outside it.
func TestOutsideNeverAutoApproved(t *testing.T) {
	policies := map[string]approval.Policy{
		"--yes":   {Unattended: true, Yes: true},
		"toggles": {Unattended: true, Yes: true, AutoApproveCommands: true, AutoApproveSensitiveEdits: true},
	}
	for name, policy := range policies {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.approver.SetPolicy("s1", policy)
			outside, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			files(t, outside, map[string]string{"secret.txt": "s3cret\n"})

			res := h.call("read_file", map[string]any{"path": filepath.Join(outside, "secret.txt")})
			if !res.Denied || strings.Contains(res.Content, "s3cret") {
				t.Fatalf("read outside under %s: %+v", name, res)
			}
			mustContain(t, res.Content, "--add-dir")
			target := filepath.Join(outside, "planted.txt")
			res = h.call("write_file", map[string]any{"path": target, "content": "x\n"})
			if !res.Denied {
				t.Fatalf("write outside under %s: %+v", name, res)
			}
			if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the file outside was written under %s (stat: %v)", name, err)
			}
			if got := h.ws.Allowed(); len(got) != 0 {
				t.Fatalf("allowed = %v", got)
			}
		})
	}
}
