package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// sandboxed returns a manager whose commands run in the sandbox, with a
// protected folder and a folder outside the workspace to aim at.
func sandboxed(t *testing.T) (m *Manager, ws, outside, secret string) {
	t.Helper()
	return sandboxedWith(t, nil)
}

// sandboxedWith is sandboxed with mod applied to the options last.
func sandboxedWith(t *testing.T, mod func(*ManagerOptions)) (m *Manager, ws, outside, secret string) {
	t.Helper()
	sb := sandbox.New("")
	if !sb.Status().Active() {
		t.Skipf("no sandbox here (%s): needs Landlock (Linux 5.13+)", sb.Status().Reason)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	outside = filepath.Join(dir, "outside")
	secret = filepath.Join(dir, "secrets", "token")
	for _, d := range []string{outside, filepath.Dir(secret)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("s3cr3t"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, ws = newTestManager(t, func(o *ManagerOptions) {
		o.Sandbox = sb
		o.SandboxSpec = sandbox.Spec{DenyRead: []string{filepath.Dir(secret)}}
		if mod != nil {
			mod(o)
		}
	})
	return m, ws, outside, secret
}

func TestSandboxedCommandsKeepTheirStateAndAreRefusedOutside(t *testing.T) {
	m, ws, outside, secret := sandboxed(t)
	sh := m.Session("s1")
	canary := filepath.Join(outside, "canary")

	res := mustRun(t, sh, "cd sub && export GREETING=hi && f=$(mktemp) && echo data > \"$f\" && cat \"$f\" && echo made > here.txt", RunOptions{})
	if res.ExitCode != 0 || res.Policy != sandbox.WorkspaceWrite || !strings.Contains(res.Output, "data") {
		t.Fatalf("everyday work failed in workspace-write: %s", res.Text())
	}
	if _, err := os.Stat(filepath.Join(ws, "sub", "here.txt")); err != nil {
		t.Fatal("the workspace write did not happen")
	}
	res = mustRun(t, sh, `echo "$GREETING $PWD $TMPDIR"`, RunOptions{Policy: sandbox.ReadOnly})
	if !strings.HasPrefix(res.Output, "hi "+filepath.Join(ws, "sub")) || strings.Contains(res.Output, " /tmp ") {
		t.Fatalf("the state did not carry over into the read-only command: %q", res.Output)
	}

	for _, tc := range []struct {
		name, command string
		policy        sandbox.Policy
		want          string
	}{
		{"read-only write in workspace", "touch '" + filepath.Join(ws, "ro.txt") + "'", sandbox.ReadOnly, "read-only sandbox refused writing " + filepath.Join(ws, "ro.txt")},
		{"workspace-write outside", "echo x > '" + canary + "'", sandbox.WorkspaceWrite, "refused writing " + canary},
		{"protected read", "cat '" + secret + "'", sandbox.WorkspaceWrite, "refused reading " + secret},
		{"dotfile in home-like place", "cp /etc/hostname '" + canary + "'", sandbox.WorkspaceWrite, "refused writing " + canary},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, sh, tc.command, RunOptions{Policy: tc.policy})
			text := res.Text()
			if res.ExitCode == 0 || !strings.Contains(text, tc.want) || !strings.Contains(text, "escalate") {
				t.Fatalf("want a refusal naming %q and how to escalate, got:\n%s", tc.want, text)
			}
			if strings.Contains(text, "s3cr3t") {
				t.Fatal("the protected file was read")
			}
		})
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("a file outside the workspace was written")
	}
	res = mustRun(t, sh, "echo x > '"+canary+"'", RunOptions{Policy: sandbox.Unsandboxed})
	if res.ExitCode != 0 || res.Policy != sandbox.Unsandboxed {
		t.Fatalf("an unsandboxed command was refused: %s", res.Text())
	}
}

func TestCommandEnvironmentDropsSecrets(t *testing.T) {
	env := append(os.Environ(), "OLLY_API_KEY=k1", "OLLY_BASE_URL=http://x", "GITHUB_TOKEN=t1", "MY_SECRET_THING=s1",
		"DB_PASSWORD=p1", "AWS_CREDENTIALS_FILE=c1", "api_key=k2", "KEEP_ME_TOKEN=kept", "PLAIN=ok", "EXTRA=gone")
	m, _ := newTestManager(t, func(o *ManagerOptions) {
		o.Env = env
		o.EnvPolicy = EnvPolicy{Keep: []string{"KEEP_ME_*"}, Drop: []string{"EXTRA"}}
	})
	res := mustRun(t, m.Session("s1"), "printenv", RunOptions{})
	for _, secret := range []string{"=k1", "=http://x", "=t1", "=s1", "=p1", "=c1", "=k2", "EXTRA="} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("printenv shows %q:\n%s", secret, res.Output)
		}
	}
	for _, kept := range []string{"KEEP_ME_TOKEN=kept", "PLAIN=ok", "OLLY=1", "TMPDIR="} {
		if !strings.Contains(res.Output, kept) {
			t.Errorf("printenv lacks %q", kept)
		}
	}
}

// TestLeftoversOfACrashedRunAreEnded runs a background job, makes the
// record look like its olly died (the owner is a pid that is not olly),
// and opens the session in a new manager: the job is ended.
func TestLeftoversOfACrashedRunAreEnded(t *testing.T) {
	if !procListing {
		t.Skip("needs /proc")
	}
	runDir := t.TempDir()
	m1, _ := newTestManager(t, func(o *ManagerOptions) { o.RunDir = runDir })
	res := mustRun(t, m1.Session("s1"), "sleep 1000 & echo $!", RunOptions{})
	pid, err := strconv.Atoi(strings.TrimSpace(res.Output))
	if err != nil || len(res.Background) == 0 {
		t.Fatalf("no background job: %s", res.Text())
	}
	recPath := filepath.Join(runDir, "s1.json")
	b, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatalf("no record of the running session: %v", err)
	}
	var rec runRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Token == "" || len(rec.Groups) == 0 {
		t.Fatalf("record %s: %v", b, err)
	}
	// The owner: a process that is certainly not the recorded one.
	rec.OwnerStart++
	b, _ = json.Marshal(rec)
	if err := os.WriteFile(recPath, b, 0o600); err != nil {
		t.Fatal(err)
	}

	m2, _ := newTestManager(t, func(o *ManagerOptions) { o.RunDir = runDir })
	mustRun(t, m2.Session("s1"), "true", RunOptions{})
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && procStart(pid) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the crashed run's job %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLeftoversOfALiveOllyAreLeftAlone(t *testing.T) {
	if !procListing {
		t.Skip("needs /proc")
	}
	runDir := t.TempDir()
	m1, _ := newTestManager(t, func(o *ManagerOptions) { o.RunDir = runDir })
	res := mustRun(t, m1.Session("s1"), "sleep 1000 & echo $!", RunOptions{})
	pid, _ := strconv.Atoi(strings.TrimSpace(res.Output))
	// Another olly opening the session while the recorded owner (here
	// our parent, alive) runs must not end its jobs.
	data, _ := os.ReadFile(filepath.Join(runDir, "s1.json"))
	var rec runRecord
	_ = json.Unmarshal(data, &rec)
	rec.Owner = os.Getppid() // alive, and recorded with its true start time
	rec.OwnerStart = procStart(rec.Owner)
	data, _ = json.Marshal(rec)
	_ = os.WriteFile(filepath.Join(runDir, "s1.json"), data, 0o600)
	m3, _ := newTestManager(t, func(o *ManagerOptions) { o.RunDir = runDir })
	mustRun(t, m3.Session("s1"), "true", RunOptions{})
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("the job of a live olly was ended")
	}
}

// TestNestedSearchCutIsSaid: where the sandbox's search for nested
// repositories could not look everywhere (here: folders deeper than its
// level bound), the first command of the bash says so, once; a nested
// clone it found stays read-only, and its refusal is explained.
func TestNestedSearchCutIsSaid(t *testing.T) {
	m, ws, _, _ := sandboxed(t)
	deep := filepath.Join(ws, strings.Repeat("d/", 40))
	for _, d := range []string{deep, filepath.Join(ws, "third_party/lib/.git/hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sh := m.Session("s1")
	res := mustRun(t, sh, "true", RunOptions{})
	if text := res.Text(); !strings.Contains(text, "nested git repositories was cut short") || !strings.Contains(text, "folder levels") {
		t.Fatalf("the first command does not say the search was cut:\n%s", text)
	}
	res = mustRun(t, sh, "echo '#!/bin/sh' > third_party/lib/.git/hooks/pre-commit", RunOptions{})
	if text := res.Text(); res.ExitCode == 0 || strings.Contains(text, "cut short") || !strings.Contains(text, "third_party/lib/.git/hooks/pre-commit") {
		t.Fatalf("want the hook refused and explained, the cut said once:\n%s", text)
	}
}

// TestPrestartProtectsANewNestedRepository: a repository cloned while the
// session's bash is already running (started ahead, when the session
// opened) is protected from the turn's commands: the turn's Prestart
// finds it and the command gets a new bash whose sandbox covers it.
func TestPrestartProtectsANewNestedRepository(t *testing.T) {
	m, ws, _, _ := sandboxed(t)
	if err := os.MkdirAll(filepath.Join(ws, "third_party"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := m.Session("s1")
	mustRun(t, sh, "true", RunOptions{}) // the bash is running, third_party holds no repository
	if err := os.MkdirAll(filepath.Join(ws, "third_party/lib/.git/hooks"), 0o755); err != nil {
		t.Fatal(err) // the person clones
	}
	sh.Prestart(RunOptions{}) // the next turn starts
	res := mustRun(t, sh, "echo '#!/bin/sh' > third_party/lib/.git/hooks/pre-commit", RunOptions{})
	if _, err := os.Stat(filepath.Join(ws, "third_party/lib/.git/hooks/pre-commit")); err == nil || res.ExitCode == 0 {
		t.Fatalf("a hook was planted in a repository cloned while the bash ran:\n%s", res.Text())
	}
}
