package shell

import (
	"strings"
	"testing"
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
