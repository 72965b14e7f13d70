package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMayChangeState(t *testing.T) {
	stateless := []string{
		"echo step-1 >> steps.txt",
		"go test ./...",
		"ls -la | grep foo && cat x || true",
		`printf '%s\n' "a b" 'c;d'`,
		"git status; git diff --stat",
		"sleep 1 & echo $!",
		"echo hi >&2 2>&1",
		"[ -f go.mod ] && echo yes",
		"grep -rn 'cd x' .",
		"echo $HOME $PATH",
		"go test -v ./...", "grep -v x f", "test -v X",
	}
	changing := []string{
		"cd sub", "export A=1", "A=1", "A=1 make", "printf -v x 1", "ls; printf -vx 1",
		"echo ${x:=1}", "echo $((x++))", "echo $[x=1]", "true $[x++]", "((x++))", "(cd x)", "{ cd x; }", "source a", ". a", "eval x",
		"if true; then :; fi", "for i in 1; do :; done", "echo 'unterminated", "echo a # ; cd x", "$CMD",
		`\cd x`, "exec ls", "read x", "set -e", "ls; cd x", "ls && export X", "ls | read x", "echo $(cd x)",
		"cat <<EOF\nx\nEOF", "&>f ls", `echo \' ; cd x ; echo \'`, `echo "\" ; cd x ; echo \""`, "kill $$", "exit", "true\ncd x", "alias x=y", "unset X", "shopt -s globstar",
	}
	for _, c := range stateless {
		if change, _ := mayChangeState(c); change {
			t.Errorf("%q: may change state, want stateless", c)
		}
	}
	for _, c := range changing {
		if change, _ := mayChangeState(c); !change {
			t.Errorf("%q: stateless, want may change state", c)
		}
	}
	if _, names := mayChangeState("ls -l | grep x && ls; echo y"); !slices.Equal(names, []string{"ls", "grep", "echo"}) {
		t.Errorf("names %q", names)
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
	time.Sleep(100 * time.Millisecond) // the save follows the result
	before := state()
	mustRun(t, sh, "echo step >> steps.txt; OLLY_PROBE=1", RunOptions{})
	mustRun(t, sh, "echo step >> steps.txt", RunOptions{})
	time.Sleep(100 * time.Millisecond)
	if after := state(); after == before || !strings.Contains(after, "OLLY_PROBE") {
		t.Fatal("a command that assigns was not followed by a save")
	}
	before = state()
	mustRun(t, sh, "echo step >> steps.txt", RunOptions{})
	time.Sleep(100 * time.Millisecond)
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
