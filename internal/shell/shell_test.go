package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStatePersists runs pairs of commands in one session: the first
// changes the shell's state, the second looks at it.
func TestStatePersists(t *testing.T) {
	cases := []struct {
		name       string
		first      string
		second     string
		wantOutput string
	}{
		{"cd", "cd sub", "basename \"$PWD\"", "sub"},
		{"exported variable", "export X=1", "echo \"$X\"; printenv X", "1\n1"},
		{"exported value with newline and =", "export X=$'a\\nb=c'", "printenv X", "a\nb=c"},
		{"shell variable", "Y=2", "echo \"$Y\"; printenv Y || echo not-exported", "2\nnot-exported"},
		{"array", "arr=(1 '2 3')", "echo \"${arr[1]}\"", "2 3"},
		{"function", "f() { echo \"f:$1\"; }", "f x", "f:x"},
		{"exported function", "g() { echo g; }; export -f g", "bash -c g", "g"},
		{"alias", "alias hello='echo hi'", "hello", "hi"},
		{"unset exported variable", "export Z=1", "unset Z", ""},
		{"OLDPWD", "cd sub; cd ..", "cd - >/dev/null; basename \"$PWD\"", "sub"},
		{"set -e does not carry over", "set -e", "false; echo still-here", "still-here"},
		{"exit code does not affect state", "cd sub; exit 7", "basename \"$PWD\"", "sub"},
		{"set -e failure still saves", "set -e; export W=5; false; echo unreachable", "echo $W", "5"},
		{"xtrace does not leak into saving", "set -x; export V=1", "echo $V", "1"},
		{"function named like a builtin", "cd() { builtin cd \"$@\" && echo moved; }", "cd sub", "moved"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestManager(t, nil)
			sh := m.Session("s")
			first := mustRun(t, sh, tc.first, RunOptions{})
			if first.Rejected != "" {
				t.Fatalf("first command rejected: %s", first.Rejected)
			}
			res := mustRun(t, sh, tc.second, RunOptions{})
			if res.Output != tc.wantOutput {
				t.Errorf("second command output = %q, want %q\nfirst: %s\nsecond: %s", res.Output, tc.wantOutput, first.Text(), res.Text())
			}
		})
	}
}

// TestUnsetPersists checks that a variable unset by one command is gone in
// the next, even though it came from the environment olly started with.
func TestUnsetPersists(t *testing.T) {
	m, _ := newTestManager(t, func(o *ManagerOptions) {
		o.Env = append(os.Environ(), "FROM_OLLY=yes")
	})
	sh := m.Session("s")
	if res := mustRun(t, sh, "echo ${FROM_OLLY-unset}", RunOptions{}); res.Output != "yes" {
		t.Fatalf("base environment not passed: %q", res.Output)
	}
	mustRun(t, sh, "unset FROM_OLLY", RunOptions{})
	if res := mustRun(t, sh, "echo ${FROM_OLLY-unset}", RunOptions{}); res.Output != "unset" {
		t.Errorf("after unset: %q, want unset", res.Output)
	}
}

// TestVirtualenvStyleActivate sources a script shaped like Python's
// venv activate (exported and plain variables, a function that undoes
// them) and uses its function in a later command.
func TestVirtualenvStyleActivate(t *testing.T) {
	m, ws := newTestManager(t, nil)
	activate := `_OLD_PATH="$PATH"
export VIRTUAL_ENV=/venv
export PATH="/venv/bin:$PATH"
deactivate() { export PATH="$_OLD_PATH"; unset VIRTUAL_ENV _OLD_PATH; unset -f deactivate; }
`
	if err := os.WriteFile(filepath.Join(ws, "activate"), []byte(activate), 0o644); err != nil {
		t.Fatal(err)
	}
	sh := m.Session("s")
	mustRun(t, sh, "source ./activate", RunOptions{})
	if res := mustRun(t, sh, `echo "$VIRTUAL_ENV ${PATH%%:*}"`, RunOptions{}); res.Output != "/venv /venv/bin" {
		t.Fatalf("after activate: %q", res.Output)
	}
	mustRun(t, sh, "deactivate", RunOptions{})
	res := mustRun(t, sh, `echo "${VIRTUAL_ENV-none} ${PATH%%:*}"; declare -F deactivate >/dev/null || echo no-function`, RunOptions{})
	if strings.Contains(res.Output, "/venv") || !strings.Contains(res.Output, "none") || !strings.Contains(res.Output, "no-function") {
		t.Errorf("after deactivate: %q", res.Output)
	}
}

func TestCwdClampedToWorkspace(t *testing.T) {
	cases := []struct {
		name    string
		command string
		reset   bool
	}{
		{"cd to filesystem root", "cd /", true},
		{"cd to parent of workspace", "cd ..", true},
		{"cd to a symlink that leaves", "ln -s / out && cd out", true},
		// PWD still names the workspace; bash is in the moved folder, and
		// the name now leads out through a link: the kernel's name for
		// bash's directory is not PWD, so PWD is resolved, and leaves.
		{"the directory swapped for a link that leaves", "cd sub && mv ../sub ../moved && ln -s / ../sub", true},
		{"PWD set to a place outside", "PWD=/", true},
		// bash's directory removed: the kernel names it "…/d (deleted)",
		// which PWD is set to, and that name is a link that leaves.
		{"a removed directory's kernel name made a link that leaves", `mkdir d && cd d && rmdir ../d && ln -s / '../d (deleted)' && PWD="$PWD (deleted)"`, true},
		{"cd inside", "cd sub", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, ws := newTestManager(t, nil)
			sh := m.Session("s")
			res := mustRun(t, sh, tc.command, RunOptions{})
			if res.CwdReset != tc.reset {
				t.Fatalf("CwdReset = %v, want %v (%s)", res.CwdReset, tc.reset, res.Text())
			}
			next := mustRun(t, sh, "pwd -P", RunOptions{})
			realWS, _ := filepath.EvalSymlinks(ws)
			if tc.reset {
				if next.Output != realWS {
					t.Errorf("next command ran in %q, want the primary root %q", next.Output, realWS)
				}
				if !hasNote(res, "outside the workspace") || !strings.Contains(res.Text(), ws) {
					t.Errorf("result does not say the cwd was reset: %s", res.Text())
				}
			} else if next.Output != filepath.Join(realWS, "sub") {
				t.Errorf("next command ran in %q", next.Output)
			}
		})
	}
}

func TestRequestedCwd(t *testing.T) {
	cases := []struct {
		name     string
		cwd      string // "$WS" is replaced by the workspace
		want     string // basename of the directory the command ran in; "" = rejected
		rejected string
	}{
		{"relative", "sub", "sub", ""},
		{"dot", ".", "<ws>", ""},
		{"absolute inside", "$WS/sub", "sub", ""},
		{"absolute outside", "/", "", "outside the workspace"},
		{"escaping relative", "../..", "", "outside the workspace"},
		{"missing", "nope", "", "does not exist"},
		{"file", "file.txt", "", "not a directory"},
		{"second root by name", "other/deep", "deep", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			other := filepath.Join(t.TempDir(), "other")
			if err := os.MkdirAll(filepath.Join(other, "deep"), 0o755); err != nil {
				t.Fatal(err)
			}
			m, ws := newTestManager(t, func(o *ManagerOptions) { o.Roots = append(o.Roots, other) })
			if err := os.WriteFile(filepath.Join(ws, "file.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			sh := m.Session("s")
			res := mustRun(t, sh, "basename \"$PWD\"", RunOptions{Cwd: strings.ReplaceAll(tc.cwd, "$WS", ws)})
			if tc.rejected != "" {
				if !strings.Contains(res.Rejected, tc.rejected) || !strings.HasPrefix(res.Text(), "[command not run") {
					t.Fatalf("Rejected = %q, want it to mention %q", res.Rejected, tc.rejected)
				}
				return
			}
			want := tc.want
			if want == "<ws>" {
				want = filepath.Base(ws)
			}
			if res.Rejected != "" || res.Output != want {
				t.Fatalf("ran in %q (rejected: %q), want %q", res.Output, res.Rejected, want)
			}
		})
	}
}

// TestRequestedCwdPersists: the cwd argument works like "cd dir &&", so
// the next command without one starts there.
func TestRequestedCwdPersists(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "true", RunOptions{Cwd: "sub"})
	if res := mustRun(t, sh, "basename \"$PWD\"", RunOptions{}); res.Output != "sub" {
		t.Errorf("next command ran in %q, want sub", res.Output)
	}
}

func TestDeletedCwdFallsBackToRoot(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "mkdir gone && cd gone", RunOptions{})
	if err := os.Remove(filepath.Join(ws, "gone")); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sh, "pwd", RunOptions{})
	if res.Output != ws || !hasNote(res, "no longer exists") {
		t.Errorf("ran in %q with notes %q; want %q and a note", res.Output, res.Notes, ws)
	}
}

func TestNonInteractiveEnvironment(t *testing.T) {
	m, _ := newTestManager(t, func(o *ManagerOptions) {
		o.Env = append(os.Environ(), "PAGER=less", "BASH_ENV=/nonexistent/bashenv", "SHELLOPTS=errexit")
	})
	sh := m.Session("s")
	cases := []struct {
		name, command, want string
	}{
		{"forced variables", `echo "$OLLY $TERM $NO_COLOR $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR"`, "1 dumb 1 cat cat 0 true"},
		{"stdin is /dev/null", "cat; echo done", "done"},
		{"no controlling terminal", "{ : </dev/tty; } 2>/dev/null && echo tty || echo no-tty", "no-tty"},
		{"BASH_ENV and SHELLOPTS dropped", "false; echo ${BASH_ENV-unset}", "unset"},
		{"marker is per command", `echo "${OLLY_SHELL_RUN%%.*}" | wc -c`, "17"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, sh, tc.command, RunOptions{Timeout: 10 * time.Second})
			if res.Output != tc.want {
				t.Errorf("output = %q, want %q (%s)", res.Output, tc.want, res.Text())
			}
		})
	}
}

func TestExitCodesAndSignals(t *testing.T) {
	cases := []struct {
		name   string
		cmd    string
		code   int
		signal string
		note   string
	}{
		{"success", "true", 0, "", ""},
		{"failure", "false", 1, "", ""},
		{"exit", "exit 42", 42, "", ""},
		{"syntax error", "if then fi", 2, "", ""},
		{"child killed by signal", "sh -c 'kill -SEGV $$'", 139, "", ""},
		{"bash killed", "kill -KILL $$", -1, "SIGKILL", "before it saved its state"},
		{"exec replaces bash", "exec true", 0, "", "replaced the shell"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestManager(t, nil)
			res := mustRun(t, m.Session("s"), tc.cmd, RunOptions{})
			if res.ExitCode != tc.code || res.Signal != tc.signal {
				t.Errorf("exit %d signal %q, want %d %q", res.ExitCode, res.Signal, tc.code, tc.signal)
			}
			if tc.note != "" && !hasNote(res, tc.note) {
				t.Errorf("notes %q lack %q", res.Notes, tc.note)
			}
		})
	}
}

// TestKilledShellRestartsCleanly: bash dying mid-command loses only that
// command's changes; the next command runs with the state from before.
func TestKilledShellRestartsCleanly(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "cd sub; export KEEP=1", RunOptions{})
	dead := mustRun(t, sh, "cd ..; export LOST=1; kill -KILL $$", RunOptions{})
	if dead.Signal != "SIGKILL" {
		t.Fatalf("signal %q, want SIGKILL", dead.Signal)
	}
	res := mustRun(t, sh, "pwd; echo ${KEEP-} ${LOST-none}", RunOptions{})
	if want := filepath.Join(ws, "sub") + "\n1 none"; res.Output != want || res.ExitCode != 0 {
		t.Errorf("after the killed shell: %q (exit %d), want %q", res.Output, res.ExitCode, want)
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	m, _ := newTestManager(t, nil)
	a, b := m.Session("a"), m.Session("b")
	if m.Session("a") != a {
		t.Fatal("Session returned a different shell for the same id")
	}
	mustRun(t, a, "cd sub; export ONLY_A=1; plain=1", RunOptions{})
	res := mustRun(t, b, "basename \"$PWD\"; echo ${ONLY_A-none} ${plain-none}", RunOptions{})
	if strings.Contains(res.Output, "sub") || res.Output != filepathBase(t, m)+"\nnone none" {
		t.Errorf("session b saw session a's state: %q", res.Output)
	}
}

func filepathBase(t *testing.T, m *Manager) string {
	t.Helper()
	return filepath.Base(m.roots.primary())
}

// TestConcurrentRunsAreSerialised: two Runs on one shell do not overlap,
// as two commands typed into one terminal would not.
func TestConcurrentRunsAreSerialised(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	log := filepath.Join(ws, "log")
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			mustRun(t, sh, "echo start >>'"+log+"'; sleep 0.1; echo end >>'"+log+"'", RunOptions{})
		})
	}
	wg.Wait()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != strings.TrimSpace(strings.Repeat("start\nend\n", 3)) {
		t.Errorf("commands overlapped:\n%s", got)
	}
}

func TestRunAfterClose(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "export A=1", RunOptions{})
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.Run(context.Background(), "true", RunOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
	fresh := m.Session("s")
	if fresh == sh {
		t.Fatal("Session after Close returned the closed shell")
	}
	if res := mustRun(t, fresh, "echo ${A-fresh}", RunOptions{}); res.Output != "fresh" {
		t.Errorf("new shell inherited state: %q", res.Output)
	}
	if err := m.CloseAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Session("t").Run(context.Background(), "true", RunOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after CloseAll: %v, want ErrClosed", err)
	}
}

func TestRunWithDoneContextDoesNotStart(t *testing.T) {
	m, ws := newTestManager(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Session("s").Run(ctx, "touch ran", RunOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, statErr := os.Stat(filepath.Join(ws, "ran")); statErr == nil {
		t.Error("the command ran")
	}
}

func TestNewManagerErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts ManagerOptions
		want string
	}{
		{"no roots", ManagerOptions{}, "no workspace roots"},
		{"relative root", ManagerOptions{Roots: []string{"rel"}}, "not an absolute path"},
		{"missing root", ManagerOptions{Roots: []string{"/nonexistent/olly"}}, "no such file"},
		{"file root", ManagerOptions{Roots: []string{file}}, "not a directory"},
		{"missing shell", ManagerOptions{Roots: []string{t.TempDir()}, Shell: "/nonexistent/bash"}, "install bash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewManager(tc.opts)
			if err == nil {
				_ = m.CloseAll()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestNotBashIsAnError(t *testing.T) {
	dir := t.TempDir()
	oldBash := filepath.Join(dir, "oldbash")
	// What bash 3.2 does with the driver: its first line reports the
	// version on stdout, the frame pipe (then it would fail on what 3.2
	// lacks).
	if err := os.WriteFile(oldBash, []byte("#!/bin/sh\nprintf 'V\\0003\\0002\\000'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, shell, want string
	}{
		{"bash 3.2", oldBash, `reports "3 2"`},
		{"prints nothing", "/bin/true", "bash 4.4"},
		{"fails", "/bin/false", "bash 4.4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestManager(t, func(o *ManagerOptions) { o.Shell = tc.shell })
			_, err := m.Session("s").Run(context.Background(), "true", RunOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestNULInCommandIsRejected(t *testing.T) {
	m, _ := newTestManager(t, nil)
	res := mustRun(t, m.Session("s"), "echo a\x00b", RunOptions{})
	if !strings.Contains(res.Rejected, "NUL") {
		t.Errorf("Rejected = %q", res.Rejected)
	}
}
