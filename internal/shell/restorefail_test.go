package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestReadonlyDriverVariableInAStateIsDropped: a state that made one of
// olly's own variables readonly (the EXIT trap saves the attribute) made
// every bash started from it fail the driver's assignment before its
// loop and exit: each later command reported "(no output)", exit code 0,
// though nothing ran, for good. Now a bash that ends before it began the
// command after taking over a state drops that state, and the command
// runs in a new bash without it, which the result says. __olly_f and
// __olly_slot, assigned only by the loop, failed after the command began
// (after B, after D): the state was kept and each later bash died so;
// now every variable of olly's is assigned once after the source.
//
// "bash first" lets the restoring bash end before olly wakes it, as a
// loaded machine often did (the wake write then fails): the state was
// kept, the second attempt restored it and failed the same way, and Run
// returned the Go error "bash ended before it began the command".
// "prestart": the bash Prestart started (its warm-up command) found the
// state broken; the result of the warm-up is read by nobody, and the
// first command's did not say the state was dropped.
func TestReadonlyDriverVariableInAStateIsDropped(t *testing.T) {
	for _, name := range []string{"__olly_dirty", "__olly_bg", "__olly_eof", "__olly_f", "__olly_slot"} {
		for _, how := range []string{"", " bash first", " prestart"} {
			t.Run(name+how, func(t *testing.T) {
				readonlyDriverVariableDropped(t, name, how)
			})
		}
	}
}

func readonlyDriverVariableDropped(t *testing.T, name, how string) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	if name == "__olly_slot" {
		// A readonly __olly_slot fails the EXIT trap's own save:
		// it gets into a state written into the file.
		mustRun(t, sh, "X=1", RunOptions{})
		mustRun(t, sh, `printf '%s\n' 'declare -r __olly_slot=0' >>"$__olly_d/state$__olly_last"; kill -9 $$`, RunOptions{})
	} else {
		mustRun(t, sh, "X=1; readonly "+name+"=0; exit 0", RunOptions{})
	}
	switch how {
	case " bash first":
		m.beforeWake = waitRestoredExit
	case " prestart":
		// The warm-up command finds the state broken (its bash ended
		// before the wake); the command below waits for it.
		m.beforeWake = waitRestoredExit
		sh.Prestart(RunOptions{})
	}
	res := mustRun(t, sh, `echo "ran X=$X"`, RunOptions{})
	m.beforeWake = nil
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
}

// waitRestoredExit, a beforeWake, lets a bash that restored a state at its
// start and was not sent a command yet run until it exits (up to 10 s),
// before olly wakes it.
func waitRestoredExit(p *bashProc) {
	if !p.restored || p.used {
		return
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
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

// TestKilledBashDidNotFailOnItsState: only a bash that ended by itself
// after taking over a state counts as failing on it (retryUnbegun drops
// the state then). One killed by a signal between commands, before olly
// saw it end, did not: dropping the state then lost every variable of a
// session whose bash was killed (TestReadOnlyStateReachesWritesAsDataOnly's
// restore cases failed under load that way).
func TestKilledBashDidNotFailOnItsState(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "X=1", RunOptions{})
	p := currentProc(sh)
	if p == nil {
		t.Fatal("no bash after a command")
	}
	if p.endedOnItsOwn() {
		t.Fatal("a running bash counts as ended")
	}
	if err := syscall.Kill(p.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	if p.endedOnItsOwn() {
		t.Error("a bash killed by SIGKILL counts as having ended on its own (its state would be dropped)")
	}
	mustRun(t, sh, "true", RunOptions{}) // a new bash
	// A bash that exits by itself does count.
	q := currentProc(sh)
	mustRun(t, sh, "exit 3", RunOptions{})
	<-q.exited
	if !q.endedOnItsOwn() {
		t.Error("a bash that exited by itself does not count as having ended on its own")
	}
}

// TestStateKeptWhenBashNeverRanTheDriver: a new bash that ended by itself
// before olly's driver began (the sandbox's helper could not confine it
// and exited 126; here a wrapper does) never read the state it was to
// restore, so it did not fail on it: the state is kept for the bash
// started once that failure is gone. It was dropped, and the result said
// the state had broken the shell. Both ways: the bash ends before olly
// wakes it (the wake write fails), or whenever it does.
func TestStateKeptWhenBashNeverRanTheDriver(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	fail := filepath.Join(dir, "fail")
	wrapper := filepath.Join(dir, "bash")
	script := "#!/bin/sh\n[ -e '" + fail + "' ] && exit 126\nexec '" + bash + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bash first", "any order"} {
		t.Run(name, func(t *testing.T) {
			_ = os.Remove(fail)
			m, _ := newTestManager(t, func(o *ManagerOptions) { o.Shell = wrapper })
			sh := m.Session("s")
			mustRun(t, sh, "X=1", RunOptions{})
			mustRun(t, sh, "kill -KILL $$", RunOptions{}) // the next bash restores the state
			if err := os.WriteFile(fail, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if name == "bash first" {
				m.beforeWake = waitRestoredExit
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if res, err := sh.Run(ctx, `echo "ran X=$X"`, RunOptions{}); err == nil && res.Output != "" {
				t.Fatalf("a command ran though no bash could start: %s", res.Text())
			}
			m.beforeWake = nil
			if err := os.Remove(fail); err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sh, `echo "ran X=$X"`, RunOptions{})
			if res.Output != "ran X=1" || hasNote(res, "could not be restored") {
				t.Errorf("the state was dropped for a bash that never read it: %s", res.Text())
			}
		})
	}
}

// currentProc is the session's current bash (proc is guarded by sem,
// which a running command holds).
func currentProc(sh *Shell) *bashProc {
	sh.sem <- struct{}{}
	defer func() { <-sh.sem }()
	return sh.proc
}
