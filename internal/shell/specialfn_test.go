package shell

import (
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestStateFileCommandFunctionsCannotTakeOver: a state file is bash's own
// declare -p, declare -f, declare -F and alias -p output, whose lines
// call declare and alias without "builtin", and the driver's loop called
// ":" unqualified (outside POSIX mode bash finds a function before a
// special builtin). A function named declare, alias or : that a command
// defined was saved with the state (declare -f) and ran in every bash
// restored or synced from it, the read-only one too. Now the purge
// removes them with builtin, before every save, and the loop calls no
// ":".
func TestStateFileCommandFunctionsCannotTakeOver(t *testing.T) {
	for _, name := range []string{"zzz", "declare", "alias", ":"} {
		t.Run(name, func(t *testing.T) {
			m, _, _, _ := sandboxed(t)
			sh := m.Session("s")
			ro := RunOptions{Policy: sandbox.ReadOnly}
			mustRun(t, sh, "echo ro", ro)
			define := "X=1; foo(){ echo foo; }; alias ll=ls; eval '" + name + "(){ PWNED=1; }'; exit 0"
			mustRun(t, sh, define, RunOptions{})
			for _, opts := range []RunOptions{{}, ro, {}} {
				if res := mustRun(t, sh, `echo "real $X $(type -t foo) [$PWNED]"`, opts); res.Output != "real 1 function []" {
					t.Fatalf("a function named %s took over (policy %v): %s", name, opts.Policy, res.Text())
				}
			}
		})
	}
}
