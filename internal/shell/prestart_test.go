package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// prestarted waits for Prestart's goroutine (it holds the shell as a
// command does) and returns the bash it started (nil: none), how many
// commands the session has sent, and whether one saved.
func prestarted(t *testing.T, sh *Shell) (*bashProc, int, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := sh.lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer sh.unlock()
	return sh.proc, sh.seq, sh.saved
}

// prestartedPid is the pid of the bash Prestart started (0: none).
func prestartedPid(t *testing.T, sh *Shell) int {
	t.Helper()
	if p, _, _ := prestarted(t, sh); p != nil {
		return p.pid
	}
	return 0
}

// TestPrestart: the first command runs in the bash Prestart started, in
// the sandbox it was started for, with everything as without Prestart;
// a second Prestart starts nothing more.
func TestPrestart(t *testing.T) {
	m, ws, _, secret := sandboxed(t)
	sh := m.Session("s")
	sh.Prestart(RunOptions{})
	pid := prestartedPid(t, sh)
	if pid == 0 {
		t.Fatal("Prestart started no bash")
	}
	sh.Prestart(RunOptions{}) // a bash runs: nothing to do
	if again := prestartedPid(t, sh); again != pid {
		t.Fatalf("second Prestart replaced bash %d with %d", pid, again)
	}
	res := mustRun(t, sh, "echo $$; cd sub; echo x > made; cat '"+secret+"' 2>/dev/null || echo refused", RunOptions{})
	if want := strconv.Itoa(pid) + "\nrefused"; res.Output != want {
		t.Fatalf("output %q, want %q (the prestarted bash, confined)", res.Output, want)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub", "made")); err != nil {
		t.Errorf("the workspace-write command could not write: %v", err)
	}
	if res := mustRun(t, sh, "pwd", RunOptions{}); res.Output != filepath.Join(ws, "sub") {
		t.Errorf("cwd not kept: %q", res.Output)
	}
}

// TestPrestartFailureSurfacesAtTheFirstCommand: a shell that is not a
// usable bash makes Prestart do nothing visible; the first command then
// reports the same error as without Prestart.
func TestPrestartFailureSurfacesAtTheFirstCommand(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "notbash")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	errOf := func(prestart bool) string {
		m, _ := newTestManager(t, func(o *ManagerOptions) { o.Shell = fake })
		sh := m.Session("s")
		if prestart {
			sh.Prestart(RunOptions{})
			if pid := prestartedPid(t, sh); pid != 0 {
				t.Fatalf("a bash %d was started", pid)
			}
		}
		_, err := sh.Run(context.Background(), "echo hi", RunOptions{})
		if err == nil {
			t.Fatal("no error")
		}
		return err.Error()
	}
	if with, without := errOf(true), errOf(false); with != without {
		t.Errorf("with Prestart: %q\nwithout: %q", with, without)
	}
}

// TestPrestartThenClose: closing right after Prestart waits for it and
// ends the bash it started (goleak in TestMain checks the goroutines).
func TestPrestartThenClose(t *testing.T) {
	m, _ := newTestManager(t, nil)
	for range 3 {
		sh := m.Session("s")
		sh.Prestart(RunOptions{})
		if err := sh.Close(); err != nil {
			t.Fatal(err)
		}
		if sh.proc != nil {
			t.Fatalf("bash %d left after Close", sh.proc.pid)
		}
		sh.Prestart(RunOptions{}) // closed: nothing
	}
}

// TestPrestartReplacesABashThatCannotRunTheCommand: a bash started ahead
// for another sandbox (here: without a directory the person allowed
// since) is replaced by the next Prestart, with the state carried over,
// so the first command does not start one itself; a Prestart for the
// same sandbox keeps it.
func TestPrestartReplacesABashThatCannotRunTheCommand(t *testing.T) {
	m, _, outside, _ := sandboxed(t)
	sh := m.Session("s")
	sh.Prestart(RunOptions{})
	first := prestartedPid(t, sh)
	mustRun(t, sh, "export KEPT=1", RunOptions{})
	sh.Prestart(RunOptions{Writable: []string{outside}})
	second := prestartedPid(t, sh)
	if second == 0 || second == first {
		t.Fatalf("bash %d after the Prestart for another sandbox (before: %d)", second, first)
	}
	res := mustRun(t, sh, "echo $$ $KEPT; echo x > '"+outside+"/allowed'", RunOptions{Writable: []string{outside}})
	if want := strconv.Itoa(second) + " 1"; res.Output != want || res.ExitCode != 0 {
		t.Fatalf("output %q (exit %d), want %q: the bash started ahead, with the state", res.Output, res.ExitCode, want)
	}
	sh.Prestart(RunOptions{Writable: []string{outside}})
	if again := prestartedPid(t, sh); again != second {
		t.Errorf("a Prestart for the same sandbox replaced bash %d with %d", second, again)
	}
}

// TestAllowedPlaceMadeAgainGetsANewBash: an allowed directory removed and
// made again between commands (the agent's scratch directory, every turn)
// is a new inode no rule of the running bash covers: the next command
// gets a bash that can write it.
func TestAllowedPlaceMadeAgainGetsANewBash(t *testing.T) {
	m, _, outside, _ := sandboxed(t)
	scratch := filepath.Join(outside, "scratch")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	sh := m.Session("s")
	opts := RunOptions{Writable: []string{scratch}}
	if res := mustRun(t, sh, "echo 1 > '"+scratch+"/a'", opts); res.ExitCode != 0 {
		t.Fatalf("%s", res.Text())
	}
	if err := os.RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	if res := mustRun(t, sh, "echo 2 > '"+scratch+"/b'", opts); res.ExitCode != 0 {
		t.Errorf("writing the directory made again: %s", res.Text())
	}
}

// TestPrestartWarmsTheBash: the bash Prestart starts has already run one
// empty command through the whole path — the session's first bash also
// saved the state, as the session's first command would have — and the
// state it restored is kept: the first command's result is what it would
// be without the warm-up.
func TestPrestartWarmsTheBash(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	sh.Prestart(RunOptions{})
	p, seq, saved := prestarted(t, sh)
	if p == nil || seq != 1 || !saved || p.savedSlot() < 0 {
		t.Fatalf("after Prestart: bash %v, %d commands, saved %v; want the warm-up run and saved in a slot", p != nil, seq, saved)
	}
	mustRun(t, sh, "export KEPT=1; f() { echo fn; }; exit 3", RunOptions{}) // bash ends, its state saved
	sh.Prestart(RunOptions{})
	p, seq, _ = prestarted(t, sh)
	if p == nil || seq != 3 {
		t.Fatalf("after the second Prestart: %d commands, want 3 (a warm-up each)", seq)
	}
	res := mustRun(t, sh, "echo $$ $KEPT $(f) $?", RunOptions{})
	if want := strconv.Itoa(p.pid) + " 1 fn 0"; res.Output != want || len(res.Notes) != 0 {
		t.Fatalf("output %q, notes %q; want %q and no note", res.Output, res.Notes, want)
	}
}

// TestWarmUpKeepsTheFreshNote: an unsandboxed bash started ahead after
// sandboxed commands (it does not take over their state) still says so
// at its first real command, not at the warm-up's.
func TestWarmUpKeepsTheFreshNote(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	mustRun(t, sh, "export LEFT=1", RunOptions{})
	unsb := RunOptions{Policy: sandbox.Unsandboxed}
	sh.Prestart(unsb)
	pid := prestartedPid(t, sh)
	res := mustRun(t, sh, `echo "$$ left=$LEFT"`, unsb)
	if want := strconv.Itoa(pid) + " left="; res.Output != want || !hasNote(res, "did not take over the variables") {
		t.Fatalf("output %q, notes %q; want %q and the fresh-shell note", res.Output, res.Notes, want)
	}
}

// BenchmarkCommandsAfterPrestart is what the session's first commands
// take (wall, as the agent waits for them) in a bash Prestart started and
// that is done starting: cmd1-ms and cmd2-ms are the first two, cmd4-ms
// the fourth (as later ones). One op is a new manager and session,
// Prestart, the wait for it, four commands and closing it all. Before the
// warm-up the first two took several times the fourth
// (docs/performance.md, "First iterations and GC").
func BenchmarkCommandsAfterPrestart(b *testing.B) {
	sb := sandbox.New("")
	if !sb.Status().Active() {
		b.Skip("no sandbox: ", sb.Status().Reason)
	}
	ctx := context.Background()
	artifacts := b.TempDir()
	var took [4]time.Duration
	for b.Loop() {
		root := b.TempDir()
		m, err := NewManager(ManagerOptions{Roots: []string{root}, ArtifactDir: artifacts, Sandbox: sb})
		if err != nil {
			b.Fatal(err)
		}
		sh := m.Session("bench")
		sh.Prestart(RunOptions{})
		if err := sh.lock(ctx); err != nil {
			b.Fatal(err)
		}
		sh.unlock()
		for k := range took {
			t0 := time.Now()
			res, err := sh.Run(ctx, fmt.Sprintf("echo step-%d >> steps.txt", k), RunOptions{})
			took[k] += time.Since(t0)
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("%v %+v", err, res)
			}
		}
		if err := m.CloseAll(); err != nil {
			b.Fatal(err)
		}
	}
	for k, name := range map[int]string{0: "cmd1-ms", 1: "cmd2-ms", 3: "cmd4-ms"} {
		b.ReportMetric(float64(took[k])/float64(b.N)/1e6, name)
	}
}
