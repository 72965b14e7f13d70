package shell

import (
	"strings"
	"testing"
	"time"
)

// TestEveryTrapIsRemoved: a command's trap on a signal other than the
// few the reset named (CHLD here) outlived it, and ran during the next,
// stateless, command (every child's end): it exported PAGER and set IFS
// where no reset follows (a stateless command is not saved), and a TMOUT
// it set made bash's wait for the next request time out, ending bash.
func TestEveryTrapIsRemoved(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, `trap 'export PAGER=less; IFS=,' CHLD`, RunOptions{})
	mustRun(t, sh, "ls", RunOptions{})
	if res := mustRun(t, sh, `printenv PAGER; printf '%q\n' "$IFS"`, RunOptions{}); res.Output != "cat\n$' \\t\\n'" {
		t.Errorf("the CHLD trap outlived its command: %s", res.Text())
	}
	if res := mustRun(t, sh, `trap -p`, RunOptions{}); strings.Contains(res.Output, "CHLD") || strings.Contains(res.Output, "USR1") {
		t.Errorf("traps outlived their command: %s", res.Text())
	}
	mustRun(t, sh, `trap 'TMOUT=1' CHLD USR1 RTMAX`, RunOptions{})
	mustRun(t, sh, "ls", RunOptions{})
	p := sh.proc
	time.Sleep(1500 * time.Millisecond)
	if res := mustRun(t, sh, `echo "tmout ${TMOUT-unset}"`, RunOptions{}); res.Output != "tmout unset" || sh.proc != p || p.dead() {
		t.Errorf("a trap's TMOUT ended the bash (or was set): %s", res.Text())
	}
}
