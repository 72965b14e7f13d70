package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// prestartedPid waits for Prestart's goroutine (it holds the shell as a
// command does) and returns the pid of the bash it started (0: none).
func prestartedPid(t *testing.T, sh *Shell) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := sh.lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer sh.unlock()
	if sh.proc == nil {
		return 0
	}
	return sh.proc.pid
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
	res := mustRun(t, sh, "echo $$; cd sub; echo x > made; cat "+secret+" 2>/dev/null || echo refused", RunOptions{})
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
	res := mustRun(t, sh, "echo $$ $KEPT; echo x > "+outside+"/allowed", RunOptions{Writable: []string{outside}})
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
	if res := mustRun(t, sh, "echo 1 > "+scratch+"/a", opts); res.ExitCode != 0 {
		t.Fatalf("%s", res.Text())
	}
	if err := os.RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	if res := mustRun(t, sh, "echo 2 > "+scratch+"/b", opts); res.ExitCode != 0 {
		t.Errorf("writing the directory made again: %s", res.Text())
	}
}
