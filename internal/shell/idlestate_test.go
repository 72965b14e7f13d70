package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestIdleBashFolderIsNotReadAgain: a job a read-only command left
// rewrites its bash's saved state while that bash waits idle; when the
// idle bash is dropped (here: an unsandboxed command), nothing of its
// folder becomes the session's state, so later workspace-write bashes
// never restore what the job planted.
func TestIdleBashFolderIsNotReadAgain(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s1")
	// The job writes only once the test says the bash waits idle (a fixed
	// delay raced the workspace-write bash's start under load: a write
	// before the bash went idle is its command's own state).
	signal := filepath.Join(t.TempDir(), "idle")
	job := `( until [ -e '` + signal + `' ]; do sleep 0.02; done; for f in "$__olly_d"/state0 "$__olly_d"/state1; do echo 'export PLANTED=yes' > "$f"; done ) >/dev/null 2>&1 & echo started`
	if res := mustRun(t, sh, job, RunOptions{Policy: sandbox.ReadOnly}); !strings.Contains(res.Output, "started") {
		t.Fatalf("the job did not start: %s", res.Text())
	}
	// The read-only bash goes idle; this command changes no state.
	mustRun(t, sh, "true", RunOptions{})
	if sh.idle == nil {
		t.Fatal("no idle read-only bash")
	}
	if err := os.WriteFile(signal, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	planted := false
	for deadline := time.Now().Add(10 * time.Second); !planted && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, f := range []string{"state0", "state1"} {
			matches, _ := filepath.Glob(filepath.Join(sh.dir, "b*", f))
			for _, p := range matches {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), "PLANTED") {
					planted = true
				}
			}
		}
	}
	if !planted {
		t.Fatal("the job planted nothing in the idle bash's folder (the test proves nothing then)")
	}
	mustRun(t, sh, "true", RunOptions{Policy: sandbox.Unsandboxed})
	if res := mustRun(t, sh, `echo "planted=[$PLANTED]"`, RunOptions{}); !strings.Contains(res.Output, "planted=[]") {
		t.Fatalf("what the job wrote into the idle bash's folder became the session's state: %s", res.Text())
	}
}

// fdProbe is a state file that records whether olly's pipes (fds 3 and
// 4) are open while it is sourced.
const fdProbe = `if { builtin : <&3; } 2>/dev/null; then FD3=open; else FD3=closed; fi
if { builtin : >&4; } 2>/dev/null; then FD4=open; else FD4=closed; fi
`

// TestStateIsSourcedWithoutOllysPipes: a state file (which a command may
// have written) is sourced with fds 3 and 4 closed, at a bash's start
// and when a live bash takes over the other one's state (sync).
func TestStateIsSourcedWithoutOllysPipes(t *testing.T) {
	t.Run("restore", func(t *testing.T) {
		m, _ := newTestManager(t, nil)
		sh := m.Session("s1")
		mustRun(t, sh, "true", RunOptions{})
		sh.dropProc(nil)
		if err := os.WriteFile(filepath.Join(sh.dir, "state"), []byte(fdProbe), 0o600); err != nil {
			t.Fatal(err)
		}
		sh.hasState, sh.stateConfined = true, false
		if res := mustRun(t, sh, `echo "fds $FD3 $FD4"`, RunOptions{}); !strings.Contains(res.Output, "fds closed closed") {
			t.Fatalf("want olly's pipes closed while the state is restored: %s", res.Text())
		}
	})
	t.Run("sync", func(t *testing.T) {
		m, _, _, _ := sandboxed(t)
		sh := m.Session("s1")
		mustRun(t, sh, "true", RunOptions{Policy: sandbox.ReadOnly})
		mustRun(t, sh, "true", RunOptions{})
		if sh.idle == nil {
			t.Fatal("no idle read-only bash")
		}
		if err := os.WriteFile(filepath.Join(sh.dir, "state"), []byte(fdProbe), 0o600); err != nil {
			t.Fatal(err)
		}
		sh.hasState, sh.stateConfined = true, true
		sh.gen++
		res := mustRun(t, sh, `echo "fds $FD3 $FD4 $$"`, RunOptions{Policy: sandbox.ReadOnly})
		if !strings.Contains(res.Output, "fds closed closed") {
			t.Fatalf("want olly's pipes closed while the state is synced: %s", res.Text())
		}
	})
}
