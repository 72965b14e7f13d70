package shell

import (
	"testing"
	"time"
)

func TestSetsNoexec(t *testing.T) {
	for cmd, want := range map[string]bool{
		"set -n":                            true,
		"set -en; echo x":                   true,
		"cd sub && set -o noexec":           true,
		"if true; then set -n; fi":          true,
		"builtin set -n":                    true,
		"(set -n)":                          true,
		"shopt -os noexec":                  true,
		"shopt -s -o noexec":                true,
		"echo a; set -e -u -n":              true,
		"set -e":                            false,
		"set +n":                            false,
		"set -- -n":                         false,
		"set x -n":                          false,
		"set -o pipefail":                   false,
		"echo set -n":                       false,
		`echo "a; set -n"`:                  false,
		"bash -c 'set -n; true'":            false,
		"grep -n set file":                  false,
		"# set -n\necho hi":                 false,
		"shopt -s nullglob":                 false,
		"shopt -o noexec":                   false,
		"git log --oneline | grep 'set -n'": false,
		"printf '%s\\n' set -n":             false,
		"echo x # then set -n\nset -euo pipefail": false,
	} {
		if got := setsNoexec(cmd); got != want {
			t.Errorf("setsNoexec(%q) = %v, want %v", cmd, got, want)
		}
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
		_ = setsNoexec(s)
		_ = runInSubshell(s)
	})
}
