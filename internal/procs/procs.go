// Package procs decides how many threads run olly's Go code at once
// (runtime.GOMAXPROCS): one while olly works sequentially, the machine's
// default while CPU-parallel work runs.
//
// olly's agent loop is a chain of hand-offs: the loop sends a request, a
// net/http goroutine writes it and another reads the answer, the shell
// runs, the store commits, the event bus wakes its subscribers. With more
// than one P, every hand-off to a goroutine readies it on another P and
// wakes a second thread, which spins looking for work, steals, and
// futex-sleeps again; none of it runs in parallel with anything useful,
// because the loop waits for each step. With one P the same hand-offs are
// goroutine switches on the running thread. Measured on a 2-CPU guest
// (docs/performance.md, "Scheduling"): less CPU per tool step and half the
// context switches, with iteration times no worse.
//
// The work that does use several CPUs (search_workspace's workers, the
// parallel directory walk) calls Wide for its duration: the first caller
// restores Go's default (the CPU count, or the cgroup's CPU limit) and the
// last one to finish narrows back to one P.
//
// It holds in every mode, `olly serve` and `olly rpc` included: there the
// sessions' loops share the one P outside parallel sections. Their system
// calls, model waits and commands still overlap (a blocking system call
// releases the P), and a step costs olly about 2 ms of CPU, much of it in
// the kernel, so a few sessions are far from filling a core; a server with
// many busy sessions can set OLLY_ONEPROC=0.
//
// An explicit GOMAXPROCS in the environment always wins (Enable does
// nothing then), and OLLY_ONEPROC=0 keeps Go's default for the whole run.
//
// With one P, Enable also gives the runtime's monitor thread (sysmon) the
// SCHED_BATCH policy on Linux, so that its 20 µs polls stop preempting the
// thread running olly's code (batchSysmon; OLLY_SYSMON_BATCH=0 keeps it).
//
// GOMAXPROCS is one number for the whole process, so the state here is
// process-wide too (a package-level counter, not a value handed through
// the app): two parallel sections running at once share one widening.
package procs

import (
	"os"
	"runtime"
	"sync"
)

// Env is the variable that turns the policy off: OLLY_ONEPROC=0 keeps Go's
// default GOMAXPROCS for the whole run.
const Env = "OLLY_ONEPROC"

var (
	mu sync.Mutex
	// on is whether Enable narrowed the process; Wide does nothing until then.
	on bool
	// users counts the Wide sections running.
	users int
	// setProcs and setDefault change the runtime's setting; tests replace them.
	setProcs   = runtime.GOMAXPROCS
	setDefault = runtime.SetDefaultGOMAXPROCS
)

// Enable narrows the process to one P unless the environment says
// otherwise (GOMAXPROCS set, or OLLY_ONEPROC=0) or the machine has one CPU
// anyway. It reports whether it did. Call it once, early in main.
func Enable() bool {
	if !enable(os.Getenv) {
		return false
	}
	batchSysmon(os.Getenv)
	return true
}

func enable(getenv func(string) string) bool {
	if getenv("GOMAXPROCS") != "" || getenv(Env) == "0" {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	if on {
		return true
	}
	if setProcs(0) <= 1 {
		return false
	}
	if users == 0 {
		setProcs(1)
	}
	on = true
	return true
}

// Wide gives the caller Go's default number of Ps (all the CPUs it may
// use) until the returned function is called; call it around work that
// runs on several goroutines at once and is CPU-bound or makes many short
// system calls (a parallel walk). Sections may nest and overlap: the
// process narrows again when the last one ends. The returned function
// must be called exactly once. Without Enable it changes nothing.
//
// Changing GOMAXPROCS stops the world for a few microseconds each way, so
// Wide suits work of a millisecond or more, not per-item calls.
func Wide() (release func()) {
	mu.Lock()
	defer mu.Unlock()
	if !on {
		return func() {}
	}
	users++
	if users == 1 {
		setDefault()
	}
	var once sync.Once
	return func() { once.Do(narrow) }
}

func narrow() {
	mu.Lock()
	defer mu.Unlock()
	users--
	if users == 0 && on {
		setProcs(1)
	}
}

// Disable ends the policy: Go's default GOMAXPROCS again, for the rest of
// the run. Tests and benchmarks use it to put the process back as they
// found it.
func Disable() {
	mu.Lock()
	defer mu.Unlock()
	if !on {
		return
	}
	on = false
	if users == 0 {
		setDefault()
	}
}
