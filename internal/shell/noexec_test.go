package shell

import (
	"testing"

	"github.com/olly-agent/olly/internal/safety"
	"time"
)

// TestSetsNoexecUsesTheCallersCheck: a check of this very command is
// believed (the command is not parsed again); one of another command (a
// person edited it) is not. What is found is safety's TestSetsNoexec.
func TestSetsNoexecUsesTheCallersCheck(t *testing.T) {
	c := safety.Check("set -n", safety.Options{})
	if !c.Noexec || !setsNoexec("set -n", &c) || !setsNoexec("set -n", nil) {
		t.Fatalf("set -n not found: %+v", c)
	}
	c.Noexec = false
	if setsNoexec("set -n", &c) {
		t.Error("the caller's check of the same command was not used")
	}
	if !setsNoexec("echo x; set -n", &c) {
		t.Error("the check of another command was used")
	}
}

// TestNoexecCommandDoesNotStopTheShell: a command that switches on
// noexec runs in a subshell, returns at once (not at its timeout) and
// says its state did not carry over; the session's bash goes on.
func TestNoexecCommandDoesNotStopTheShell(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	before := mustRun(t, sh, "echo $$", RunOptions{})
	res := mustRun(t, sh, "echo before; set -n; echo hidden", RunOptions{Timeout: 20 * time.Second})
	if res.TimedOut || res.Output != "before" || !hasNote(res, "noexec") {
		t.Fatalf("%s", res.Text())
	}
	if after := mustRun(t, sh, "echo $$", RunOptions{}); after.Output != before.Output {
		t.Errorf("the session's bash was replaced: %s, then %s", before.Output, after.Output)
	}
}

func FuzzSetsNoexec(f *testing.F) {
	for _, s := range []string{"set -n", "shopt -os noexec", "echo 'set -n", "a\\", "# x\nset -o noexec", "{ set -n; }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = setsNoexec(s, nil)
		_ = runInSubshell(s)
	})
}
