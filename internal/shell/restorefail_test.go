package shell

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestReadonlyDriverVariableInAStateIsDropped: a state that made one of
// olly's own variables readonly (the EXIT trap saves the attribute) made
// every bash started from it fail the driver's assignment before its
// loop and exit: each later command reported "(no output)", exit code 0,
// though nothing ran, for good. Now a bash that ends before it began the
// command after taking over a state drops that state, and the command
// runs in a new bash without it, which the result says.
func TestReadonlyDriverVariableInAStateIsDropped(t *testing.T) {
	for _, name := range []string{"__olly_dirty", "__olly_bg", "__olly_eof"} {
		t.Run(name, func(t *testing.T) {
			m, _ := newTestManager(t, nil)
			sh := m.Session("s")
			mustRun(t, sh, "X=1; readonly "+name+"=0; exit 0", RunOptions{})
			res := mustRun(t, sh, `echo "ran X=$X"`, RunOptions{})
			if res.Output != "ran X=" || res.ExitCode != 0 {
				t.Fatalf("the command did not run in a bash without the state: %s", res.Text())
			}
			if !hasNote(res, "could not be restored") {
				t.Errorf("the result does not say the state was dropped: %s", res.Text())
			}
			mustRun(t, sh, "Y=2", RunOptions{})
			if res := mustRun(t, sh, `echo "ran Y=$Y"`, RunOptions{}); res.Output != "ran Y=2" || strings.Contains(res.Text(), "could not be restored") {
				t.Errorf("the session did not recover: %s", res.Text())
			}
		})
	}
}

// TestReadonlyDriverVariableInASyncIsDropped: the same through a sync,
// the session's read-only bash taking over the workspace-write bash's
// state: the read-only bash ended before it began each command.
func TestReadonlyDriverVariableInASyncIsDropped(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	ro := RunOptions{Policy: sandbox.ReadOnly}
	mustRun(t, sh, "echo ro", ro)
	mustRun(t, sh, "X=1; readonly __olly_dirty=0; exit 0", RunOptions{})
	res := mustRun(t, sh, `echo "ran X=$X"`, ro)
	if res.Output != "ran X=" || !hasNote(res, "could not be restored") {
		t.Fatalf("the read-only command did not run in a bash without the state: %s", res.Text())
	}
	for _, opts := range []RunOptions{ro, {}} {
		if res := mustRun(t, sh, `echo "ran $X"`, opts); res.Output != "ran " || strings.Contains(res.Text(), "could not be restored") {
			t.Errorf("the session did not recover: %s", res.Text())
		}
	}
}
