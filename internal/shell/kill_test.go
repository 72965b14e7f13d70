package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether pid is a live process (zombies are dead: in this
// kind of container init may never reap them).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}

// pidsIn returns the numbers on lines of out that are only a number.
func pidsIn(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, l := range strings.Split(out, "\n") {
		if n, err := strconv.Atoi(strings.TrimSpace(l)); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// waitGone waits up to d for pid to die.
func waitGone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return !alive(pid)
}

func requireProc(t *testing.T) {
	t.Helper()
	if !procListing {
		t.Skip("needs /proc")
	}
}

// TestTimeoutKillsProcessTree: a timeout kills everything the command
// started, however it tried to get away.
func TestTimeoutKillsProcessTree(t *testing.T) {
	requireProc(t)
	cases := []struct {
		name      string
		command   string
		minKilled int
		wantPIDs  int
	}{
		{"background grandchild", "sleep 1000 & echo $!; sleep 1000", 3, 1},
		{"setsid descendant", "setsid sleep 1000 & echo $!; sleep 1000", 3, 1},
		{"orphaned setsid grandchild", "(setsid sh -c 'echo $$; exec sleep 1000' &); sleep 1000", 3, 1},
		{"setsid -f (forks, parent exits)", "setsid -f sh -c 'echo $$; exec sleep 1000'; sleep 1000", 3, 1},
		{"ignores SIGTERM", "sh -c 'trap \"\" TERM; echo $$; while :; do sleep 0.05; done' & sleep 1000", 3, 1},
		{"foreground only", "echo $$; sleep 1000", 2, 1},
		{"busy loop in bash itself", "echo $$; while :; do :; done", 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A loaded machine may not start the processes within the
			// first timeout; try again with longer ones rather than
			// depend on how fast bash starts.
			var (
				sh   *Shell
				res  *Result
				pids []int
			)
			for _, timeout := range []time.Duration{time.Second, 5 * time.Second, 20 * time.Second} {
				m, _ := newTestManager(t, nil)
				sh = m.Session("s")
				res = mustRun(t, sh, tc.command, RunOptions{Timeout: timeout})
				if !res.TimedOut {
					t.Fatalf("not timed out: %s", res.Text())
				}
				if pids = pidsIn(t, res.Output); len(pids) == tc.wantPIDs {
					break
				}
			}
			if len(pids) != tc.wantPIDs {
				t.Fatalf("want %d pids in the output, got %q", tc.wantPIDs, res.Output)
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("pid %d survived the timeout", pid)
				}
			}
			if res.Killed < tc.minKilled {
				t.Errorf("Killed = %d, want at least %d", res.Killed, tc.minKilled)
			}
			want := fmt.Sprintf("timed out after %s; killed %d process", res.Timeout, res.Killed)
			if !strings.Contains(res.Text(), want) {
				t.Errorf("result does not say %q:\n%s", want, res.Text())
			}
			if res.Duration > 10*time.Second {
				t.Errorf("took %s", res.Duration)
			}
			// The shell is usable afterwards.
			if next := mustRun(t, sh, "echo ok", RunOptions{}); next.Output != "ok" {
				t.Errorf("next command: %s", next.Text())
			}
		})
	}
}

// TestCancelStopsQuickly: cancelling the context stops the command and Run
// returns without waiting for it (KillGrace is 250 ms; the bound of 20 s,
// far under the command's 1000 s, is no speed bar: a 1 s bound failed once
// at load 10).
func TestCancelStopsQuickly(t *testing.T) {
	requireProc(t)
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelledc := make(chan time.Time, 1)
	go func() {
		// Cancel once the command is running (not while olly checks bash).
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
				break
			}
		}
		cancelledc <- time.Now()
		cancel()
	}()
	res, err := sh.Run(ctx, "sleep 1000 & echo $!; touch started; sleep 1000", RunOptions{})
	returned := time.Now()
	cancelled := <-cancelledc
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.TimedOut {
		t.Fatalf("Canceled=%v TimedOut=%v", res.Canceled, res.TimedOut)
	}
	if d := returned.Sub(cancelled); d > 20*time.Second {
		t.Errorf("Run returned %s after cancellation: it waited for the command", d)
	}
	for _, pid := range pidsIn(t, res.Output) {
		if alive(pid) {
			t.Errorf("background pid %d survived cancellation", pid)
		}
	}
	if !hasNote(res, "canceled; killed") {
		t.Errorf("notes: %q", res.Notes)
	}
}

// TestBackgroundJobReturns: a command that leaves a job running returns
// when its foreground part ends, says so, and Close kills the job.
func TestBackgroundJobReturns(t *testing.T) {
	requireProc(t)
	cases := []struct {
		name    string
		command string
		holdsIO bool
	}{
		{"holds the output pipe", "sleep 1000 & echo $!", true},
		{"output redirected", "sleep 1000 >/dev/null 2>&1 & echo $!", false},
		{"nohup", "nohup sleep 1000 >/dev/null 2>&1 & echo $!", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestManager(t, nil)
			sh := m.Session("s")
			res := mustRun(t, sh, tc.command, RunOptions{Timeout: 20 * time.Second})
			if res.TimedOut || res.Duration > 5*time.Second {
				t.Fatalf("the background job held up the call: %s", res.Text())
			}
			pids := pidsIn(t, res.Output)
			if len(pids) != 1 || !alive(pids[0]) {
				t.Fatalf("background job not running: %q", res.Output)
			}
			if len(res.Background) != 1 || res.Background[0] != pids[0] {
				t.Errorf("Background = %v, want [%d]", res.Background, pids[0])
			}
			if !hasNote(res, "background processes still running: "+strconv.Itoa(pids[0])+" (sleep)") {
				t.Errorf("notes: %q", res.Notes)
			}
			if (res.BackgroundLog != "") != tc.holdsIO {
				t.Errorf("BackgroundLog = %q, holdsIO %v", res.BackgroundLog, tc.holdsIO)
			}
			// Later commands work while the job runs.
			if next := mustRun(t, sh, "echo next", RunOptions{}); next.Output != "next" || len(next.Background) != 0 {
				t.Errorf("next command: %s", next.Text())
			}
			if err := sh.Close(); err != nil {
				t.Fatal(err)
			}
			if !waitGone(pids[0], 2*time.Second) {
				t.Errorf("Close left pid %d running", pids[0])
			}
		})
	}
}

// TestCloseKillsEscapedBackground: a job that left the process group and
// whose parent exited is still found (by its environment marker).
func TestCloseKillsEscapedBackground(t *testing.T) {
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	var pids []int
	// Each command waits for its job to write its pid (up to 20 s): a
	// fixed sleep 0.2 was too short for a loaded machine, and cat found
	// no file.
	for i, cmd := range []string{
		"(setsid sh -c 'echo $$ >pid0.new; mv pid0.new pid0; exec sleep 1000' >/dev/null 2>&1 &); " + waitFile("pid0") + "; cat pid0",
		"setsid -f sh -c 'echo $$ >pid1.new; mv pid1.new pid1; exec sleep 1000' >/dev/null 2>&1; " + waitFile("pid1") + "; cat pid1",
	} {
		res := mustRun(t, sh, cmd, RunOptions{})
		got := pidsIn(t, res.Output)
		if len(got) != 1 || !alive(got[0]) {
			t.Fatalf("escaped job %d not running: %s", i, res.Text())
		}
		pids = append(pids, got[0])
	}
	if err := m.CloseAll(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !waitGone(pid, 2*time.Second) {
			t.Errorf("CloseAll left pid %d running", pid)
		}
	}
}

// TestBackgroundOutputGoesToLog: output a job writes after its command
// returned lands in the background log.
func TestBackgroundOutputGoesToLog(t *testing.T) {
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	res := mustRun(t, sh, "(sleep 0.5; printf '\\033[32mlate\\033[0m\\n') & echo now", RunOptions{})
	if res.Output != "now" || res.BackgroundLog == "" {
		t.Fatalf("%s", res.Text())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(res.BackgroundLog)
		if string(b) == "late\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background log = %q, want \"late\\n\"", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCloseDuringRun: closing the shell stops the running command.
func TestCloseDuringRun(t *testing.T) {
	requireProc(t)
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	done := make(chan *Result, 1)
	go func() {
		res, err := sh.Run(context.Background(), "echo $$ >'"+filepath.Join(ws, "pid")+"'; sleep 1000", RunOptions{Timeout: 30 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	pidFile := filepath.Join(ws, "pid")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) { // a hang bound
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("command did not start")
		}
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil || !res.Canceled || !hasNote(res, "shell was closed") {
		t.Fatalf("result: %+v", res)
	}
}

// TestTimedOutCommandKeepsCd: bash saves its state on SIGTERM, so a
// command stopped by a timeout keeps the cd it made before it hung. The
// command prints a marker once it has made its changes; if a loaded machine
// had not got that far before the timeout, the test runs again with a longer
// one, so it never depends on how fast bash starts.
func TestTimedOutCommandKeepsCd(t *testing.T) {
	requireProc(t)
	for _, timeout := range []time.Duration{500 * time.Millisecond, 3 * time.Second, 15 * time.Second} {
		m, _ := newTestManager(t, nil)
		sh := m.Session("s")
		res := mustRun(t, sh, "cd sub; export AFTER_TIMEOUT=1; echo changed; sleep 1000", RunOptions{Timeout: timeout})
		if !res.TimedOut {
			t.Fatalf("not timed out: %s", res.Text())
		}
		if !strings.Contains(res.Output, "changed") {
			continue // timed out before the command made its changes
		}
		next := mustRun(t, sh, "basename \"$PWD\"; echo ${AFTER_TIMEOUT-unset}", RunOptions{})
		if next.Output != "sub\n1" {
			t.Errorf("after the timeout: %q, want sub and 1\ntimed-out result: %s", next.Output, res.Text())
		}
		return
	}
	t.Fatal("the command never reached its marker, even with a 15 s timeout")
}

// TestEarlierJobNotTakenForTheCommand: bash's children started since the
// command began are the command's, except a job an earlier command left
// running (same pid and start time) that happened to start in that clock
// tick; a recycled pid (another start time) is not excused.
func TestEarlierJobNotTakenForTheCommand(t *testing.T) {
	procs := []procInfo{
		{pid: 100, ppid: 1, pgid: 100, start: 10},   // the session's bash
		{pid: 200, ppid: 100, pgid: 100, start: 50}, // the earlier command's job
		{pid: 201, ppid: 100, pgid: 100, start: 50}, // this command's child
		{pid: 300, ppid: 201, pgid: 100, start: 51}, // and its child
		{pid: 202, ppid: 100, pgid: 100, start: 50}, // a recycled pid of an old job
	}
	tg := target{shell: 100, shellStart: 10, childSince: 50, earlier: map[int]uint64{200: 50, 202: 7}}
	set := map[int]uint64{}
	tg.addDescendants(procs, set)
	if _, in := set[200]; in {
		t.Error("the earlier command's job was taken for this command's")
	}
	for _, pid := range []int{201, 300, 202} {
		if _, in := set[pid]; !in {
			t.Errorf("pid %d is this command's but was left out: %v", pid, set)
		}
	}
}

// waitFile is a shell loop that waits up to 20 s for file to exist.
func waitFile(file string) string {
	return "for i in $(seq 2000); do [ -e " + file + " ] && break; sleep 0.01; done"
}
