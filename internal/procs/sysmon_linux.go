//go:build linux

package procs

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// SysmonEnv is the variable that keeps the runtime's monitor thread as it
// is: OLLY_SYSMON_BATCH=0 leaves sysmon with the normal scheduling policy.
const SysmonEnv = "OLLY_SYSMON_BATCH"

// nanosleepNR is the system call the Go runtime's sysmon polls with
// (runtime.usleep is nanosleep on linux); with one P no other runtime
// thread sleeps with it (idle threads wait in futex, the netpoller in
// epoll_pwait, lock spinning yields with sched_yield).
const nanosleepNR = unix.SYS_NANOSLEEP

// futexNR, and the futex operation without its flags (FUTEX_WAIT).
const (
	futexNR      = unix.SYS_FUTEX
	futexCmdMask = 0x7f
	futexWait    = 0
)

// batchSysmon gives the Go runtime's monitor thread (sysmon) the
// SCHED_BATCH policy, so that its wake-ups stop preempting the thread that
// runs olly's Go code.
//
// sysmon polls every 20 µs while any P is running (runtime.sysmon): with
// one P, every busy stretch of a step. Each poll is a nanosleep whose
// timer wakes sysmon on whatever CPU it slept on, and with the normal
// policy the wake-up preempts the running thread there — most often
// olly's own, which then switches out and back for each 20 µs poll (perf:
// 9–14 such preemptions per tool step). A SCHED_BATCH thread keeps its
// full CPU share but does not preempt on wake-up (kernel/sched/fair.c:
// "BATCH and IDLE tasks do not preempt others"): sysmon then runs when the
// loop's thread blocks (every step does, on the model and on bash) or on
// an idle CPU, and polls less while olly runs. Its duties are all
// tolerant of that: retaking a P from a system call (the blocked thread is
// off the CPU, so the CPU is free for sysmon), preempting a goroutine
// running for 10 ms, the 10 ms netpoll and the 2 min forced GC.
//
// The thread is found through /proc/self/task/TID/syscall: the one thread
// in nanosleep or in a timed futex wait (sysmonWait), the same in two
// readings in a row (with one P no other runtime thread uses nanosleep,
// and idle threads wait without a timeout). If none or several are found,
// nothing changes. sched_setattr on a thread of one's own process needs no
// privilege, and SCHED_BATCH is a normal policy. It is set with
// SCHED_FLAG_RESET_ON_FORK: a thread sysmon starts (runtime.newm from
// handoffp) begins with the normal policy, so neither the Ms that run
// olly's code nor the commands forked from them ever inherit it.
//
// It reports the thread changed, or 0.
func batchSysmon(getenv func(string) string) int {
	if getenv(SysmonEnv) == "0" {
		return 0
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := unix.Gettid()
	last := 0
	for range 8 {
		tid := sleeper(self)
		if tid != 0 && tid == last {
			attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_BATCH, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
			if unix.SchedSetAttr(tid, &attr, 0) != nil {
				return 0
			}
			return tid
		}
		last = tid
	}
	return 0
}

// sysmonWait reports whether a /proc/PID/task/TID/syscall line ("NR ARG1
// ... ARG6 SP PC") is one of sysmon's two waits: nanosleep (its poll), or
// a futex wait with a timeout (runtime.notetsleep: its deep sleep while
// every P is idle). Idle threads wait in futex without a timeout
// (runtime.notesleep), the netpoller in epoll_pwait.
func sysmonWait(line string) bool {
	f := strings.Fields(line)
	if len(f) < 5 {
		return false
	}
	switch f[0] {
	case strconv.Itoa(nanosleepNR):
		return true
	case strconv.Itoa(futexNR):
		op, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 32)
		return err == nil && op&futexCmdMask == futexWait && f[4] != "0x0"
	}
	return false
}

// sleeper returns the one thread of the process, other than self, that is
// in one of sysmon's waits, or 0 when there is none or more than one.
func sleeper(self int) int {
	if tids := sleepers(self, 2); len(tids) == 1 {
		return tids[0]
	}
	return 0
}

// sleepers returns up to max threads of the process, other than self, that
// are in one of sysmon's waits.
func sleepers(self, max int) []int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var found []int
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || tid == self {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/syscall")
		if err != nil || !sysmonWait(string(b)) {
			continue
		}
		if found = append(found, tid); len(found) == max {
			break
		}
	}
	return found
}
