package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/safety"
)

// TestCommandFactsUsesTheCallersCheck: a check of this very command is
// believed (the command is not parsed again); one of another command (a
// person edited it) is not, nor is none. What is found is safety's
// TestSetsNoexec and TestStateless.
func TestCommandFactsUsesTheCallersCheck(t *testing.T) {
	c := safety.Check("set -n", safety.Options{})
	if !c.Noexec || !commandFacts("set -n", &c).Noexec || !commandFacts("set -n", nil).Noexec {
		t.Fatalf("set -n not found: %+v", c)
	}
	c.Noexec = false
	if commandFacts("set -n", &c).Noexec {
		t.Error("the caller's check of the same command was not used")
	}
	if !commandFacts("echo x; set -n", &c).Noexec {
		t.Error("the check of another command was used")
	}
	ls := safety.Check("ls -l | grep x && ls; echo y", safety.Options{})
	if f := commandFacts(ls.Command, &ls); !f.Stateless || !slices.Equal(f.Names, []string{"ls", "grep", "echo"}) {
		t.Errorf("the caller's check: %+v", f)
	}
	if f := commandFacts(ls.Command, nil); !f.Stateless || !slices.Equal(f.Names, []string{"ls", "grep", "echo"}) {
		t.Errorf("no check: %+v", f)
	}
	ls.Stateless = false
	if commandFacts(ls.Command, &ls).Stateless || !commandFacts("ls", &ls).Stateless {
		t.Error("the caller's stateless answer was not used for its command only")
	}
}

// TestStatelessCommandsSkipTheSave: a command that only runs programs is
// not followed by a save, and the state saved before it is the state
// after it; calling a function or an alias is saved like any change.
func TestStatelessCommandsSkipTheSave(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	// The state files' contents and modification times: a save rewrites
	// one of them even when nothing changed.
	state := func() string {
		var out string
		for slot := range 2 {
			b, _ := os.ReadFile(sh.statePath(slot))
			fi, _ := os.Stat(sh.statePath(slot))
			if fi != nil {
				out += fi.ModTime().String()
			}
			out += string(b)
		}
		return out
	}
	mustRun(t, sh, "cd sub; export A=1; f() { export B=2; }; alias g='export C=3'", RunOptions{})
	settled(t, sh) // the save follows the result
	before := state()
	mustRun(t, sh, "echo step >> steps.txt; OLLY_PROBE=1", RunOptions{})
	mustRun(t, sh, "echo step >> steps.txt", RunOptions{})
	settled(t, sh)
	if after := state(); after == before || !strings.Contains(after, "OLLY_PROBE") {
		t.Fatal("a command that assigns was not followed by a save")
	}
	before = state()
	mustRun(t, sh, "echo step >> steps.txt", RunOptions{})
	settled(t, sh)
	if state() != before {
		t.Error("a command that only appends to a file was followed by a save")
	}
	mustRun(t, sh, "f", RunOptions{})
	mustRun(t, sh, "g", RunOptions{})
	mustRun(t, sh, "ls >/dev/null", RunOptions{})
	mustRun(t, sh, "kill -KILL $$", RunOptions{})
	res := mustRun(t, sh, `echo "${PWD##*/} $A ${B-} ${C-}"; cat steps.txt`, RunOptions{})
	if res.Output != "sub 1 2 3\nstep\nstep\nstep" {
		t.Errorf("after the killed shell: %q (root %s)", res.Output, ws)
	}
}

// TestDriverOutputStaysOutOfACommandsFiles: olly's own code in the
// session's bash silences builtins by bash's own stdout and stderr
// (/dev/null), not by redirections: a command that redirected its
// descriptors with exec (bash undoes that after the command's group)
// must not get what olly's code prints (the function check prints the
// function's name) in its file, and the next command's output still
// reaches olly. (It would pass with redirections in olly's code too; a
// command that keeps its exec past the group: TestBashStdoutKeptPastACommand.)
func TestDriverOutputStaysOutOfACommandsFiles(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, `f() { echo from-f; }; exec >leak 2>&1 </dev/zero; echo hidden`, RunOptions{})
	res := mustRun(t, sh, "f", RunOptions{})
	if res.Output != "from-f" {
		t.Errorf("the next command's output: %q", res.Output)
	}
	if b, err := os.ReadFile(ws + "/leak"); err != nil || string(b) != "hidden\n" {
		t.Errorf("the command's file holds %q (%v), want only what the command wrote", b, err)
	}
}

// TestBashStdoutKeptPastACommand: bash's own stdout, outside a command,
// is the frame pipe, restored after each command from a copy bash saved
// (close-on-exec, fds 13 and up). A command that closes bash's copies of
// /dev/null (fd 12 and the saved stderr, found through /proc) changes
// nothing: later commands run in the same bash, with stdin /dev/null,
// and nothing reaches the command's file. One that closes the saved copy
// of the frame pipe too keeps its exec's redirection past the command, so
// olly's frames go there: that command ends at its timeout, and the next
// runs in a new bash (driver.bash says so).
func TestBashStdoutKeptPastACommand(t *testing.T) {
	requireProc(t)
	closeSaved := func(from, target string) string {
		return `for p in /proc/$$/fd/*; do n=${p##*/}; if ((n >= ` + from + `)) && [[ $(readlink "$p") == ` + target + ` ]]; then eval "exec $n>&-"; fi; done`
	}
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, `f() { read -t 1 x; echo "from-f $?"; }; exec >leak 2>/dev/null </dev/zero; `+closeSaved("10", "/dev/null"), RunOptions{})
	pid := sh.proc.pid
	for i := range 2 {
		if res := mustRun(t, sh, "f", RunOptions{}); res.Output != "from-f 1" {
			t.Errorf("command %d after: %s", i, res.Text())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "leak")); len(b) != 0 {
		t.Errorf("leak holds %q: the redirection outlived the command", b)
	}
	if sh.proc.pid != pid {
		t.Error("the bash was replaced")
	}
	res := mustRun(t, sh, `exec >leak2; `+closeSaved("13", "'pipe:'*"), RunOptions{Timeout: time.Second})
	if !res.TimedOut {
		t.Errorf("the command that took the frame pipe: %s", res.Text())
	}
	if res := mustRun(t, sh, "f", RunOptions{}); res.Output != "from-f 1" {
		t.Errorf("the command after: %s", res.Text())
	}
}

// BenchmarkCommandFacts is what the shell spends deciding about a command
// no caller checked (the terminal tool's check gives the same answers from
// the parse it makes anyway): safety.Facts. (Up to 84682ee it was the
// "facts" sub-benchmark, and an "old" one measured the noexec parse plus the hand lexer it replaced:
// docs/performance.md.)
func BenchmarkCommandFacts(b *testing.B) {
	cmds := []string{
		"echo step >> steps.txt", "go test ./...", "git status; git diff --stat", "ls -la | grep foo && cat x || true",
		"grep -rn \"TODO\" --include='*.go' .", "cd web && npm test", "python3 -m pytest tests/ -x -q",
		"find . -name '*.go' | xargs wc -l", "sed -i 's/old/new/g' src/main.go", "export A=1",
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cmds {
			safety.Facts(c)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cmds))/1000, "µs/command")
}

// settled returns once the save that follows the last command's result is
// on disk: bash takes the next request only after it saved, so a stateless
// command run now (no save of its own) returns after that. A sleep of 100
// ms stood here, which a loaded machine can outlast.
func settled(t *testing.T, sh *Shell) {
	t.Helper()
	if res := mustRun(t, sh, "true", RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("true: %s", res.Text())
	}
}
