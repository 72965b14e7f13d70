package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

var (
	readOnly  = RunOptions{Policy: sandbox.ReadOnly}
	readWrite = RunOptions{Policy: sandbox.WorkspaceWrite}
)

// pidOf runs "echo $$" and returns the bash that ran it.
func pidOf(t *testing.T, sh *Shell, opts RunOptions) int {
	t.Helper()
	res := mustRun(t, sh, "echo $$", opts)
	pid, err := strconv.Atoi(res.Output)
	if err != nil {
		t.Fatalf("echo $$: %s", res.Text())
	}
	return pid
}

// TestTwoBashesFollowTheState: read-only and workspace-write commands
// alternate between two live bash processes, one per policy, which are
// not replaced at each switch; cd, exports (and unset), functions and
// aliases made in the workspace-write one are there in the next command
// in the other; from the read-only one only cd and variables (and unset)
// come back, unexported, and not into a name the other exports.
func TestTwoBashesFollowTheState(t *testing.T) {
	m, ws, _, _ := sandboxed(t)
	sh := m.Session("s")
	rw := pidOf(t, sh, readWrite)
	mustRun(t, sh, "cd sub; export A=1; GONE=x; f() { echo fn-$A; }; alias al='echo al'; declare -a arr=(x y)", readWrite)
	ro := pidOf(t, sh, readOnly)
	if ro == rw {
		t.Fatal("the read-only command ran in the workspace-write bash")
	}
	res := mustRun(t, sh, `echo "$A ${PWD##*/} ${arr[1]}"; f; al`, readOnly)
	if res.Output != "1 sub y\nfn-1\nal" {
		t.Errorf("read-only bash after the switch: %q", res.Output)
	}
	// Variables (and unset) carry back; functions and aliases a read-only
	// command defined or removed do not (handover.go), and the result says so.
	mustRun(t, sh, "export B=2; unset GONE; unset -f f; cd ..; g() { echo g; }", readOnly)
	res = mustRun(t, sh, `echo "$$ $A $B ${GONE-unset} $(type -t f) $(type -t g || echo nog)"; pwd; f`, readWrite)
	if want := strconv.Itoa(rw) + " 1 2 unset function nog\n" + ws + "\nfn-1"; res.Output != want {
		t.Errorf("back in the workspace-write bash: %q, want %q", res.Output, want)
	}
	if !hasNote(res, "functions and aliases that read-only commands defined or changed do not carry over") {
		t.Errorf("no note about the functions left behind: %s", res.Text())
	}
	if again := pidOf(t, sh, readOnly); again != ro {
		t.Errorf("the read-only bash was replaced (%d, then %d)", ro, again)
	}
	// A stateless command after a switch still runs with the state.
	mustRun(t, sh, "export C=3", readWrite)
	if res := mustRun(t, sh, "echo $C", readOnly); res.Output != "3" {
		t.Errorf("stateless command after a switch: %q", res.Output)
	}
}

// TestTwoBashesOneKilled: a bash killed while it waits idle is replaced
// by a new one with the newest state; one killed by its own command
// leaves the other with the state saved before that command.
func TestTwoBashesOneKilled(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	rw := pidOf(t, sh, readWrite)
	mustRun(t, sh, "K=1", readWrite) // (not exported: an exported K would keep its value, handstate.go)
	ro := pidOf(t, sh, readOnly)
	if err := syscall.Kill(rw, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	mustRun(t, sh, "K=2", readOnly)
	res := mustRun(t, sh, "echo $$ $K", readWrite)
	if f := strings.Fields(res.Output); len(f) != 2 || f[0] == strconv.Itoa(rw) || f[1] != "2" {
		t.Errorf("after the idle bash was killed: %q (killed %d)", res.Output, rw)
	}
	mustRun(t, sh, "export K=3", readWrite)
	res = mustRun(t, sh, "export K=4; kill -9 $$", readOnly)
	if res.Signal != "SIGKILL" {
		t.Fatalf("%s", res.Text())
	}
	if res := mustRun(t, sh, "echo $$ $K", readOnly); res.Output == strconv.Itoa(ro)+" 3" || !strings.HasSuffix(res.Output, " 3") {
		t.Errorf("after the read-only bash killed itself: %q, want a new bash with K=3", res.Output)
	}
}

// TestTwoBashesTimeout: a command that times out in one bash ends that
// bash only; its cd and variables (saved as it was stopped) reach the
// other, which keeps running. The command prints a marker once it has made
// its changes; if a loaded machine had not got that far before the
// timeout (bash limited to 1% of a CPU did not), the test runs again with
// a longer one, as TestTimedOutCommandKeepsCd does.
func TestTwoBashesTimeout(t *testing.T) {
	for _, timeout := range []time.Duration{300 * time.Millisecond, 3 * time.Second, 15 * time.Second} {
		m, _, _, _ := sandboxed(t)
		sh := m.Session("s")
		rw := pidOf(t, sh, readWrite)
		res := mustRun(t, sh, "cd sub; export T=1; echo changed; sleep 30", RunOptions{Policy: sandbox.ReadOnly, Timeout: timeout})
		if !res.TimedOut {
			t.Fatalf("%s", res.Text())
		}
		if !strings.Contains(res.Output, "changed") {
			continue // timed out before the command made its changes
		}
		next := mustRun(t, sh, `echo "$$ $T ${PWD##*/}"`, readWrite)
		if want := strconv.Itoa(rw) + " 1 sub"; next.Output != want {
			t.Errorf("workspace-write bash after the timeout: %s, want %q\ntimed-out result: %s", next.Text(), want, res.Text())
		}
		return
	}
	t.Fatal("the command never reached its marker, even with a 15 s timeout")
}

// TestUnsandboxedRunStaysAlone: an unsandboxed command ends both sandboxed
// bashes and does not take their state (as before); the next sandboxed
// commands start afresh from what the unsandboxed one left.
func TestUnsandboxedRunStaysAlone(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	rw := pidOf(t, sh, readWrite)
	mustRun(t, sh, "export P=planted", readWrite)
	ro := pidOf(t, sh, readOnly)
	res := mustRun(t, sh, `echo "${P-clean}"; export U=1`, RunOptions{Policy: sandbox.Unsandboxed})
	if res.Output != "clean" {
		t.Errorf("unsandboxed command saw the sandboxed state: %q", res.Output)
	}
	for _, pid := range []int{rw, ro} {
		if processAlive(pid) {
			t.Errorf("sandboxed bash %d still runs beside the unsandboxed one", pid)
		}
	}
	if res := mustRun(t, sh, `echo "$U ${P-clean}"`, readOnly); res.Output != "1 clean" {
		t.Errorf("read-only command after the unsandboxed one: %q", res.Output)
	}
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// TestIdleAgainWithoutSaveKeepsStateFile: a bash that goes idle copies
// its last save into the session's state file; going idle again after
// only commands that skipped the save copies nothing (the file holds that
// save already), and after a new save copies it: the other bash takes it.
func TestIdleAgainWithoutSaveKeepsStateFile(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	state := func() os.FileInfo {
		t.Helper()
		fi, err := os.Stat(sh.dir + "/state")
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	mustRun(t, sh, "export A=1", readWrite)
	mustRun(t, sh, "echo x", readOnly)
	// A hard link keeps the first state file's inode in use: a later
	// copy (renamed over the state file) cannot be given its number.
	first := state()
	keep := filepath.Join(t.TempDir(), "first-state")
	if err := os.Link(sh.dir+"/state", keep); err != nil {
		keep = sh.dir + ".first-state" // another file system: beside the state directory
		if err := os.Link(sh.dir+"/state", keep); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Remove(keep) })
	}
	for range 2 {
		mustRun(t, sh, "echo y >> f.txt", readWrite)
		mustRun(t, sh, "ls", readOnly)
	}
	if !os.SameFile(state(), first) {
		t.Error("the state file was copied again though no command saved")
	}
	mustRun(t, sh, "export A=2", readWrite)
	if res := mustRun(t, sh, `echo "a=$A"`, readOnly); res.Output != "a=2" {
		t.Errorf("the read-only bash after a new save: %s", res.Text())
	}
	if os.SameFile(state(), first) {
		t.Error("a new save was not copied into the state file")
	}
}

// TestOtherPolicyFitsWithoutPinning: at a switch, the bash of the other
// policy is found unfit without pinning the request (an lstat per path
// component of every writable place); the same policy's bash started for
// another request is still compared with the request pinned.
func TestOtherPolicyFitsWithoutPinning(t *testing.T) {
	want := sandbox.Spec{Policy: sandbox.WorkspaceWrite, Writable: []string{t.TempDir()}}
	other := &bashProc{spec: sandbox.Spec{Policy: sandbox.ReadOnly}, want: sandbox.Spec{Policy: sandbox.ReadOnly}, exited: make(chan struct{})}
	pin := &pinning{want: want}
	if fits(other, pin) || pin.pinned != nil {
		t.Errorf("the read-only bash: fits %v, pinned %v", fits(other, pin), pin.pinned != nil)
	}
	same := &bashProc{spec: sandbox.Spec{Policy: sandbox.WorkspaceWrite}, want: sandbox.Spec{Policy: sandbox.WorkspaceWrite}, exited: make(chan struct{})}
	if fits(same, pin) || pin.pinned == nil {
		t.Errorf("a workspace-write bash of another request: fits %v, pinned %v", fits(same, pin), pin.pinned != nil)
	}
}
