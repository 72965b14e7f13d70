package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestMayChangeStateJudgesPrintfOptionsUnquoted: printf's -v is found
// after quote removal, and an argument the scan cannot know (an
// expansion, a pattern) counts as an option.
func TestMayChangeStateJudgesPrintfOptionsUnquoted(t *testing.T) {
	for _, c := range []string{
		`printf "-v" POSIXLY_CORRECT y`, `printf -"v" TMOUT 1`, `printf '-v' x 1`, `printf "-"v x 1`,
		`printf $o x 1`, `printf "$o" x 1`, `printf -[v] x 1`, `ls; printf -? x 1`,
	} {
		if change, _ := mayChangeState(c); !change {
			t.Errorf("%q: stateless, want may change state", c)
		}
	}
}

// TestMayChangeStateBoundsTheNames: a command with more distinct names
// than bash is asked to check is judged stateful, and sends no names (a
// 40 000-name command took minutes, holding the shell).
func TestMayChangeStateBoundsTheNames(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "c%d;", i)
	}
	if change, names := mayChangeState(b.String()); !change || len(names) != 0 {
		t.Errorf("40000 names: change %v, %d names sent", change, len(names))
	}
	var ok []string
	for i := range 64 {
		ok = append(ok, fmt.Sprintf("c%d", i))
	}
	cmd := strings.Join(ok, "; ") + "; " + strings.Join(ok, " | ")
	if change, names := mayChangeState(cmd); change || len(names) != 64 {
		t.Errorf("%d names, each twice: change %v, %d names", 64, change, len(names))
	}
	if change, _ := mayChangeState(cmd + "; one_more"); !change {
		t.Errorf("%d names: stateless", 64+1)
	}
}

func BenchmarkMayChangeStateHuge(b *testing.B) {
	var sb strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&sb, "c%d;", i)
	}
	cmd := sb.String()
	for b.Loop() {
		mayChangeState(cmd)
	}
}

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

// TestAliasWithoutBASH_ALIASESDoesNotRunInAStatelessCommand: with
// BASH_ALIASES unset bash cannot see the alias named like the command's
// program; a stateless command runs with aliases off, so the alias (which
// set a DEBUG trap running inside olly's own code) does not run.
func TestAliasWithoutBASH_ALIASESDoesNotRunInAStatelessCommand(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mark := filepath.Join(ws, "trapped")
	mustRun(t, sh, `unset BASH_ALIASES; alias ls='trap ": >>`+mark+`" DEBUG; set -o posix; ls'`, RunOptions{})
	for _, c := range []string{"ls /", "echo one", "echo two"} {
		if res := mustRun(t, sh, c, RunOptions{}); strings.Contains(res.Output, "posix") {
			t.Errorf("%q: %s", c, res.Text())
		}
	}
	if res := mustRun(t, sh, `echo "opts $SHELLOPTS"`, RunOptions{}); strings.Contains(res.Output, "posix") {
		t.Errorf("the alias ran in a stateless command: %s", res.Text())
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the alias's DEBUG trap ran")
	}
}

// TestBreakDoesNotReparseTheLoopWithAliases: after a command's break,
// olly's loop is parsed again; with the command's aliases on, an alias
// named like olly's function rewrote the loop for good.
func TestBreakDoesNotReparseTheLoopWithAliases(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mark := filepath.Join(ws, "rewritten")
	mustRun(t, sh, `alias __olly_post='echo x >>`+mark+`; __olly_post'; break`, RunOptions{})
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
