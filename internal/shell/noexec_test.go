package shell

import (
	"testing"

	"time"
)

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
		_ = commandFacts(s, nil)
		_ = runInSubshell(s)
	})
}
