package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSlowStateSaveIsNotKilled: a bash whose EXIT trap (the state save)
// takes longer than the kill grace is left to finish it, while the
// command's process that ignores SIGTERM is killed. Stands in for a bash
// starved of CPU on a loaded machine, which was SIGKILLed half-way through
// its save after 250 ms (TestTwoBashesTimeout failed with bash limited to
// 1% of a CPU in a cgroup, and at load 90).
func TestSlowStateSaveIsNotKilled(t *testing.T) {
	requireProc(t)
	dir := t.TempDir()
	saved, child := filepath.Join(dir, "saved"), filepath.Join(dir, "child")
	// The trap works 600 ms (builtins only, no child) and then writes
	// what it saved; the child ignores SIGTERM.
	script := `trap 'trap "" TERM; end=$(( ${EPOCHREALTIME/./} + 600000 ));
		while (( ${EPOCHREALTIME/./} < end )); do :; done; echo done > "$1"; exit 0' TERM
	(trap '' TERM; exec sleep 1000) & echo $! > "$2"
	while :; do sleep 0.05; done`
	cmd := exec.Command("bash", "-c", script, "bash", saved, child)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var childPid int
	for deadline := time.Now().Add(20 * time.Second); childPid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the background child never started")
		}
		childPid = pidsFromFile(t, child)
	}
	start := procStart(cmd.Process.Pid)
	tg := target{shell: cmd.Process.Pid, shellStart: start, since: start, withShell: true}
	killTree(tg, 50*time.Millisecond)
	err := <-exited
	if b, _ := os.ReadFile(saved); string(b) != "done\n" {
		t.Errorf("the trap did not finish (bash: %v): the shell was killed during its save", err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signaled() {
		t.Errorf("bash ended by a signal (%v), want its own exit after the trap", err)
	}
	if alive(childPid) {
		t.Errorf("the child that ignores SIGTERM (%d) outlived killTree", childPid)
	}
}

// pidsFromFile returns the pid written in path, or 0 while there is none.
func pidsFromFile(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 || b[len(b)-1] != '\n' {
		return 0
	}
	pids := pidsIn(t, string(b))
	if len(pids) != 1 {
		t.Fatalf("%s holds %q", path, b)
	}
	return pids[0]
}
