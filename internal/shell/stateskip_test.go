package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestQuotedPrintfOptionIsNotStateless: a printf -v spelled with quotes
// set POSIXLY_CORRECT (posix mode) and TMOUT as a "stateless" command,
// so neither was reset: posix mode stayed on, and TMOUT made bash's wait
// for the next request time out, which ended bash.
func TestQuotedPrintfOptionIsNotStateless(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "true", RunOptions{})
	mustRun(t, sh, `printf "-v" POSIXLY_CORRECT y`, RunOptions{})
	if res := mustRun(t, sh, `echo "opts $SHELLOPTS"`, RunOptions{}); strings.Contains(res.Output, "posix") {
		t.Errorf("posix mode outlived the command: %s", res.Text())
	}
	mustRun(t, sh, `printf -"v" TMOUT 1`, RunOptions{})
	p := sh.proc
	time.Sleep(1500 * time.Millisecond)
	if res := mustRun(t, sh, `echo "tmout $TMOUT"`, RunOptions{}); res.Output != "tmout 1" || sh.proc != p || p.dead() {
		t.Errorf("TMOUT ended the bash (or was lost): %s", res.Text())
	}
}

// TestAliasWithoutBASH_ALIASESIsReset: with BASH_ALIASES unset bash
// cannot see the alias named like the command's program. The driver asks
// only bash's own BASH_ALIASES and without it saves the command; a saved
// command runs with aliases on, so the alias (a DEBUG trap running inside
// olly's own code, posix mode) runs, and the reset after it must undo
// what it set.
func TestAliasWithoutBASH_ALIASESIsReset(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mark := filepath.Join(ws, "trapped")
	mustRun(t, sh, `unset BASH_ALIASES; alias ls='trap ": >>`+mark+`" DEBUG; set -o posix; ls'`, RunOptions{})
	mustRun(t, sh, "ls /", RunOptions{})
	os.Remove(mark)
	for _, c := range []string{"echo one", "echo two"} {
		if res := mustRun(t, sh, c, RunOptions{}); strings.Contains(res.Output, "posix") {
			t.Errorf("%q: %s", c, res.Text())
		}
	}
	if res := mustRun(t, sh, `echo "opts $SHELLOPTS"`, RunOptions{}); strings.Contains(res.Output, "posix") {
		t.Errorf("the alias's option outlived its command: %s", res.Text())
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the alias's DEBUG trap outlived its command")
	}
}

// TestBreakDoesNotReparseTheLoopWithAliases: after a command's break,
// olly's loop is parsed again; with the command's aliases on, an alias
// of a word olly's loop starts its statements with rewrote the loop for
// good.
func TestBreakDoesNotReparseTheLoopWithAliases(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mark := filepath.Join(ws, "rewritten")
	mustRun(t, sh, `alias builtin='echo x >>`+mark+`; builtin'; break`, RunOptions{})
	for _, c := range []string{"echo one", "cd sub", "echo two"} {
		mustRun(t, sh, c, RunOptions{})
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("an alias rewrote olly's loop")
	}
}

// TestSyncAfterFd12ClosedRunsNothingWiped: a command that closed bash's
// fd 12 made the next sync's source fail silently, after every function,
// alias and variable (PATH too) was wiped: the command ran with none of
// them and the wiped state was saved. Now the sync opens /dev/null by
// path; the command sees the synced state.
func TestSyncAfterFd12ClosedRunsNothingWiped(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	mustRun(t, sh, "export KEEP=1", RunOptions{})
	mustRun(t, sh, "exec 12<&-; echo closed", RunOptions{})
	mustRun(t, sh, "export FROMB=1", RunOptions{Policy: sandbox.ReadOnly})
	res := mustRun(t, sh, `echo "keep=$KEEP b=$FROMB path=${PATH:+set}"`, RunOptions{})
	if res.Output != "keep=1 b=1 path=set" {
		t.Errorf("after the sync: %s", res.Text())
	}
	if res := mustRun(t, sh, `echo "keep=$KEEP b=$FROMB path=${PATH:+set}"`, RunOptions{}); res.Output != "keep=1 b=1 path=set" {
		t.Errorf("the command after: %s", res.Text())
	}
}

// TestWarmSaveWaitStopsAtClose: the wait for the save a warm-up command
// announced ends when Close begins (s.closing), not after saveWait: a
// bash whose save never comes here would otherwise hold Close for it.
func TestWarmSaveWaitStopsAtClose(t *testing.T) {
	p := &bashProc{saveTok: "announced", savec: make(chan struct{}), exited: make(chan struct{})}
	closing := make(chan struct{})
	close(closing)
	done := make(chan bool, 1)
	go func() {
		_, ok := p.waitSaved(time.Hour, closing)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("waitSaved reported a save that never came")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("waitSaved did not stop when Close began")
	}
}

// TestSubscriptAssignmentsAreSaved: test -v evaluates an array
// subscript, and so does $r for a nameref r to an array element: the old
// scan found test -v 'a[X=1]' and echo $r stateless, so what they
// assigned was not saved, and was lost when the bash was replaced. Now
// each is saved: after the bash is killed, the next one has them.
func TestSubscriptAssignmentsAreSaved(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "declare -n r='a[X3=3]'", RunOptions{})
	for _, c := range []string{"test -v 'a[X1=1]'", "[ -v 'a[X2=2]' ]", "echo $r"} {
		mustRun(t, sh, c, RunOptions{})
	}
	mustRun(t, sh, "kill -KILL $$", RunOptions{})
	if res := mustRun(t, sh, `echo "$X1 $X2 $X3"`, RunOptions{}); res.Output != "1 2 3" {
		t.Errorf("after the killed bash: %s", res.Text())
	}
}

// TestLooserStatelessCommandsRun: commands the old scan gave up on and the
// parse finds stateless (quoted names, code-like text in quotes, a
// redirection before the name) run as they should and skip the save.
func TestLooserStatelessCommandsRun(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "export A=1; printf 'a b\\n' > in.txt", RunOptions{})
	settled(t, sh) // the save follows the result
	state := func() string {
		var out string
		for slot := range 2 {
			b, _ := os.ReadFile(sh.statePath(slot))
			if fi, _ := os.Stat(sh.statePath(slot)); fi != nil {
				out += fi.ModTime().String()
			}
			out += string(b)
		}
		return out
	}
	before := state()
	for c, want := range map[string]string{
		"awk '{print $2}' in.txt":            "b",
		`"cat" in.txt | grep -E '(a|x) b'`:   "a b",
		`echo "\" ; cd / ; echo \""`:         `" ; cd / ; echo "`,
		"&>out.txt echo hidden; cat out.txt": "hidden",
		`\pwd`:                               ws,
	} {
		if res := mustRun(t, sh, c, RunOptions{}); res.Output != want {
			t.Errorf("%q: %s, want %q", c, res.Text(), want)
		}
	}
	settled(t, sh)
	if state() != before {
		t.Error("a stateless command was followed by a save")
	}
}

// TestIndexedBASH_ALIASESIsNotEvaluated: bash looks each name of a
// stateless command up in BASH_ALIASES; a session that unset it and made
// it an indexed array turned that lookup into arithmetic on the name, so
// a variable named like the program (ls='POSIXLY_CORRECT=1') assigned in
// olly's own code, before the command, and the command, found stateless,
// was followed by no reset: posix mode stayed on; a subscript in the
// value ran code there (and a nameref BASH_ALIASES to an array element
// ran its subscript). Now the lookup is made only in an associative
// BASH_ALIASES that is no nameref (otherwise the command is saved, as
// when one of its names is an alias).
func TestIndexedBASH_ALIASESIsNotEvaluated(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mark := filepath.Join(ws, "ran")
	mustRun(t, sh, "true", RunOptions{})
	mustRun(t, sh, `unset BASH_ALIASES; BASH_ALIASES=(x); ls='POSIXLY_CORRECT=1'; cat='y[$(: >`+mark+`)]'; echo='a[LEFT=1]'`, RunOptions{})
	for _, c := range []string{"ls /", "cat /dev/null", "echo x"} {
		if res := mustRun(t, sh, c, RunOptions{}); res.ExitCode != 0 {
			t.Errorf("%q: %s", c, res.Text())
		}
	}
	if res := mustRun(t, sh, `printf '%s\n' "left=${LEFT-}"`, RunOptions{}); res.Output != "left=" {
		t.Errorf("the name check of echo assigned: %s", res.Text())
	}
	// A nameref to an array element: even its attributes evaluate the
	// subscript.
	mustRun(t, sh, `unset BASH_ALIASES; a=(1); declare -n BASH_ALIASES='a[$(: >`+mark+`)]'`, RunOptions{})
	if res := mustRun(t, sh, "ls /", RunOptions{}); res.ExitCode != 0 {
		t.Errorf("with the nameref: %s", res.Text())
	}
	if res := mustRun(t, sh, `echo "opts $SHELLOPTS"`, RunOptions{}); strings.Contains(res.Output, "posix") {
		t.Errorf("the name check switched posix mode on: %s", res.Text())
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the name check ran code")
	}
}

// TestNamerefLoopVariableHidesNoFunction: bash checks a stateless
// command's names in a loop over __olly_n; a command that made __olly_n a
// nameref had each name turned into the value of the variable it names,
// so a function named like a program ran as a stateless command: its
// posix mode was not reset, its variable not saved.
func TestNamerefLoopVariableHidesNoFunction(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "true", RunOptions{})
	mustRun(t, sh, "ls() { export X=1; set -o posix; }; declare -n __olly_n", RunOptions{})
	mustRun(t, sh, "ls", RunOptions{})
	if res := mustRun(t, sh, `echo "opts $SHELLOPTS"`, RunOptions{}); strings.Contains(res.Output, "posix") {
		t.Errorf("the function's posix mode outlived it: %s", res.Text())
	}
	mustRun(t, sh, "kill -KILL $$", RunOptions{})
	if res := mustRun(t, sh, `echo "x=$X"`, RunOptions{}); res.Output != "x=1" {
		t.Errorf("after the killed bash: %s", res.Text())
	}
}
