//go:build linux

package procs

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestBatchSysmon checks that the thread batchSysmon changes is the
// runtime's monitor: not the caller's, in nanosleep or (with every P idle)
// a timed futex wait whenever it is read, and SCHED_BATCH with
// SCHED_FLAG_RESET_ON_FORK afterwards. The thread is put back to SCHED_OTHER
// at the end.
func TestBatchSysmon(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc: batchSysmon changes nothing there")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// batchSysmon looks 8 times in a row and changes nothing when it does
	// not see sysmon waiting twice: on a loaded machine sysmon, woken but
	// waiting for a CPU, reads as running (2 of 3 runs beside two CPU
	// hogs). Called again, as olly is not, it finds it once it waits.
	tid := 0
	for range 500 {
		if tid = batchSysmon(func(string) string { return "" }); tid != 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if tid == 0 {
		// The race runtime's background thread sleeps in nanosleep too
		// (one run in seven here): with two candidates batchSysmon rightly
		// changes nothing.
		if n := len(sleepers(unix.Gettid(), 8)); n > 1 {
			t.Skipf("%d threads wait as sysmon does: batchSysmon changes none (as it must)", n)
		}
		t.Fatal("batchSysmon found no sysmon thread")
	}
	t.Cleanup(func() {
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
		if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
			t.Errorf("restoring SCHED_OTHER on %d: %v", tid, err)
		}
	})
	if tid == unix.Gettid() {
		t.Fatalf("batchSysmon changed the calling thread %d", tid)
	}
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if attr.Policy != unix.SCHED_BATCH {
		t.Fatalf("policy of %d is %d, want SCHED_BATCH (%d)", tid, attr.Policy, unix.SCHED_BATCH)
	}
	// A thread sysmon starts, and a command forked from one, begins with
	// the normal policy.
	if attr.Flags&unix.SCHED_FLAG_RESET_ON_FORK == 0 {
		t.Fatalf("flags of %d are %#x, want SCHED_FLAG_RESET_ON_FORK", tid, attr.Flags)
	}
	// Whenever it is read, the thread is in one of sysmon's two waits (or
	// running its loop).
	for i := range 20 {
		b, err := os.ReadFile("/proc/self/task/" + itoa(tid) + "/syscall")
		if err != nil {
			t.Fatal(err)
		}
		if !sysmonWait(string(b)) && !strings.HasPrefix(string(b), "running") {
			t.Fatalf("reading %d: thread %d is in %q, not sysmon's nanosleep or futex", i, tid, strings.TrimSpace(string(b)))
		}
	}
}

func TestBatchSysmonOff(t *testing.T) {
	if tid := batchSysmon(func(k string) string { return map[string]string{SysmonEnv: "0"}[k] }); tid != 0 {
		t.Fatalf("%s=0: batchSysmon changed thread %d", SysmonEnv, tid)
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

func TestSysmonWait(t *testing.T) {
	nano, futex := itoa(unix.SYS_NANOSLEEP), itoa(unix.SYS_FUTEX)
	for _, c := range []struct {
		line string
		want bool
	}{
		{nano + " 0x7f5e0c3fed88 0x0 0x0 0x0 0x0 0x0 0x7f5e0c3fed60 0x46f3a3\n", true},
		// deep sleep: FUTEX_WAIT_PRIVATE with a timeout
		{futex + " 0x23cd6e0 0x80 0x0 0x7f5e0c3fed28 0x0 0x0 0x7f5e0c3fecf0 0x46f3a3\n", true},
		// an idle thread: no timeout
		{futex + " 0xc000100148 0x80 0x0 0x0 0x0 0x0 0x7f5e0bbfdd10 0x46f3a3\n", false},
		// a wake, not a wait
		{futex + " 0x23cd6e0 0x81 0x1 0x0 0x0 0x0 0x7f5e0c3fecf0 0x46f3a3\n", false},
		{"running\n", false},
		{"-1 0x7ffc3c9d0f18 0x46f3a3\n", false},
		{"", false},
		{"232 0x4 0x7ffe 0x80 0x0 0x0 0x0 0x7ffe 0x46f3a3\n", false},
	} {
		if got := sysmonWait(c.line); got != c.want {
			t.Errorf("sysmonWait(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}
