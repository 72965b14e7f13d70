package shell

import (
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestStatelessCommandsKeepTheForcedEnvironment: bash exports the
// entries olly forces (TERM=dumb, PAGER=cat…) again only after a command
// that could change them; a command found stateless cannot. So after a
// saved command changed them, the stateless commands that follow (one
// after another) see the forced values, and each its own OLLY_SHELL_RUN.
func TestStatelessCommandsKeepTheForcedEnvironment(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "export TERM=xterm PAGER=less; unset NO_COLOR", RunOptions{})
	var tokens []string
	for i := range 3 {
		res := mustRun(t, sh, "printenv TERM PAGER NO_COLOR OLLY_SHELL_RUN", RunOptions{})
		lines := strings.Split(res.Output, "\n")
		if len(lines) != 4 || lines[0] != "dumb" || lines[1] != "cat" || lines[2] != "1" {
			t.Fatalf("stateless command %d after a change of the forced entries: %s", i, res.Text())
		}
		tokens = append(tokens, lines[3])
	}
	if tokens[0] == tokens[1] || tokens[1] == tokens[2] {
		t.Errorf("stateless commands share OLLY_SHELL_RUN: %q", tokens)
	}
	// A saved command in between, then stateless ones again.
	mustRun(t, sh, "export TERM=vt100", RunOptions{})
	for range 2 {
		if res := mustRun(t, sh, "printenv TERM", RunOptions{}); res.Output != "dumb" {
			t.Fatalf("after a second change: %s", res.Text())
		}
	}
}

// TestIFSAfterStatelessCommands: IFS is set back before the command
// after one that changed it, also when stateless commands come between.
func TestIFSAfterStatelessCommands(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "IFS=,", RunOptions{})
	mustRun(t, sh, "true", RunOptions{})
	mustRun(t, sh, "ls >/dev/null", RunOptions{})
	if res := mustRun(t, sh, `x=a,b; set -- $x; echo "$#"`, RunOptions{}); res.Output != "1" {
		t.Errorf("IFS after stateless commands: %s", res.Text())
	}
}

// TestStdinAfterStatelessCommands: a command that changed bash's stdin
// (exec) is followed by stateless commands, each of which reads
// /dev/null; bash looks at its stdin again after the next saved command.
func TestStdinAfterStatelessCommands(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, `exec </dev/zero`, RunOptions{})
	for i := range 2 {
		if res := mustRun(t, sh, `head -c 3 | od -An -c`, RunOptions{}); strings.TrimSpace(res.Output) != "" {
			t.Fatalf("stateless command %d after an exec of bash's stdin read %q", i, res.Output)
		}
	}
	mustRun(t, sh, `cd .; exec </dev/zero`, RunOptions{})
	if res := mustRun(t, sh, `head -c 3 | od -An -c`, RunOptions{}); strings.TrimSpace(res.Output) != "" {
		t.Fatalf("after a second exec: %q", res.Output)
	}
}

// TestTMOUTDoesNotEndTheWait: bash waits for olly's next request with
// read's -t only while the session has a TMOUT (read's default timeout);
// one set by a command, or taken over from the other bash's state, must
// not end that wait (and bash) while the session is idle.
func TestTMOUTDoesNotEndTheWait(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	first := mustRun(t, sh, "TMOUT=1; KEPT=1; echo $$", RunOptions{})
	time.Sleep(2500 * time.Millisecond)
	if res := mustRun(t, sh, `echo "$$ $KEPT"`, RunOptions{}); res.Output != first.Output+" 1" {
		t.Fatalf("after an idle wait longer than TMOUT: %s (bash was %s)", res.Text(), first.Output)
	}
	// Set in the read-only bash, then taken over by the workspace-write
	// one (a sync): TMOUT is not carried over as data (handover.go), so
	// it is set here in the workspace-write bash itself, then handed to
	// the read-only one as code.
	mustRun(t, sh, "TMOUT=1", RunOptions{})
	ro := mustRun(t, sh, "echo $$", RunOptions{Policy: sandbox.ReadOnly})
	time.Sleep(2500 * time.Millisecond)
	if res := mustRun(t, sh, "echo $$", RunOptions{Policy: sandbox.ReadOnly}); res.Output != ro.Output {
		t.Errorf("the read-only bash that took TMOUT over ended while idle: %s, was %s", res.Text(), ro.Output)
	}
}

// TestBackgroundJobEndingWhileIdle: a job a command left in the
// background ends while bash waits for the next request (SIGCHLD during
// the read); bash goes on waiting, and the next command runs in it.
func TestBackgroundJobEndingWhileIdle(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	first := mustRun(t, sh, "KEPT=1; sleep 0.2 & echo $$", RunOptions{})
	time.Sleep(700 * time.Millisecond)
	if res := mustRun(t, sh, `echo "$$ $KEPT"`, RunOptions{}); res.Output != first.Output+" 1" {
		t.Fatalf("after a background job ended while bash waited: %s (bash was %s)", res.Text(), first.Output)
	}
}
