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
