package shell

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

// fakeBuiltin is a function named builtin that answers olly's eval of
// every later command with "faked", exit 0, and passes on the rest.
const fakeBuiltin = `builtin(){ if [[ $1 == eval && $3 == "$__olly_cmd" ]]; then command builtin echo faked; return 0; fi; command builtin "$@"; }`

// TestBuiltinFunctionCannotTakeOver: a function named builtin ran in
// place of every builtin olly's driver calls, so every later command
// returned its "faked", in the same bash and in each bash that restored
// the state it was saved in (declare -f), with unset and command defined
// as functions too. A readonly one, which cannot be removed, ends the
// bash that took it over: the state is dropped.
func TestBuiltinFunctionCannotTakeOver(t *testing.T) {
	cases := []struct {
		name, define string
		dropped      bool // the state is dropped (the result says so)
	}{
		{"same bash", fakeBuiltin, false},
		{"same bash, unset a function too", fakeBuiltin + `; unset(){ :; }`, false},
		{"restored from the state the EXIT trap saved", "X=1; " + fakeBuiltin + "; exit 0", false},
		{"restored, unset a function too", "X=1; " + fakeBuiltin + "; unset(){ :; }; exit 0", false},
		{"readonly, restored", "X=1; " + fakeBuiltin + "; readonly -f builtin; exit 0", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestManager(t, nil)
			sh := m.Session("s")
			mustRun(t, sh, tc.define, RunOptions{})
			for _, c := range []string{"echo real", "cd sub && echo real"} {
				res := mustRun(t, sh, c, RunOptions{})
				if res.Output != "real" {
					t.Fatalf("%q: a function named builtin took over: %s", c, res.Text())
				}
			}
			res := mustRun(t, sh, `echo "X=$X"`, RunOptions{})
			if tc.dropped {
				if res.Output != "X=" {
					t.Errorf("the state with a readonly builtin function was kept: %s", res.Text())
				}
			} else if strings.Contains(tc.name, "restored") && res.Output != "X=1" {
				t.Errorf("the rest of the state was lost: %s", res.Text())
			}
		})
	}
}

// TestBuiltinFunctionDoesNotReachTheOtherBash: the session's read-only
// bash takes over the workspace-write bash's state as code (a sync): a
// function named builtin in it took the read-only bash over too. It gets
// into a state through the EXIT trap's save, or written into the state
// file by a command (bash then killed: its last save is kept).
func TestBuiltinFunctionDoesNotReachTheOtherBash(t *testing.T) {
	for name, plant := range map[string]string{
		"saved by the EXIT trap": "X=1; " + fakeBuiltin + "; exit 0",
		"written into the state": `X=1; printf '%s\n' '` + fakeBuiltin + `' >>"$__olly_d/state$__olly_last"; kill -9 $$`,
	} {
		t.Run(name, func(t *testing.T) {
			m, _, _, _ := sandboxed(t)
			sh := m.Session("s")
			ro := RunOptions{Policy: sandbox.ReadOnly}
			mustRun(t, sh, "echo ro", ro)
			mustRun(t, sh, "X=1", RunOptions{})
			mustRun(t, sh, plant, RunOptions{})
			for _, c := range []string{`echo "real $X"`, `echo "real $X"`} {
				if res := mustRun(t, sh, c, ro); res.Output != "real 1" {
					t.Fatalf("%q in the read-only bash: %s", c, res.Text())
				}
			}
			if res := mustRun(t, sh, `echo "real $X"`, RunOptions{}); res.Output != "real 1" {
				t.Fatalf("in the workspace-write bash: %s", res.Text())
			}
		})
	}
}
