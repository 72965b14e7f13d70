package shell

import (
	"os"
	"syscall"
	"time"
)

// target says which processes belong to a command, or to a whole session.
// A process belongs when it is
//   - in the process group of the command's bash (leader), which bash and
//     everything it starts without job control share, background jobs
//     included;
//   - or has marker in its environment: olly gives every command an
//     OLLY_SHELL_RUN entry, which children inherit even after setsid or
//     after their parent exited and they were re-parented to init;
//   - or descends from such a process, or shares a process group with a
//     marked one (children that cleared their environment);
//
// and started no earlier than since, so a recycled pid is never mistaken
// for one of ours.
type target struct {
	leader int
	marker []byte
	since  uint64
	// shell is the session's bash (started at shellStart) when the target
	// is one command: its process group, which also holds earlier
	// commands' jobs, is not taken whole; its children started since
	// childSince are the command's (a job bash has forked but that has
	// not yet executed its program still has bash's environment); bash
	// itself belongs only if withShell (a command being stopped).
	shell      int
	shellStart uint64
	childSince uint64
	withShell  bool
	// earlier are the jobs earlier commands of this shell left running
	// (pid → start time): a job started in the same clock tick as this
	// command is not this command's child.
	earlier map[int]uint64
}

// members returns the live processes of t, pid → start time. Without a
// process listing (not Linux) it returns nil and callers rely on the
// process group alone.
func (t target) members() map[int]uint64 {
	procs, err := listProcs()
	if err != nil {
		return nil
	}
	set := t.seeds(procs)
	t.addDescendants(procs, set)
	delete(set, 0)
	delete(set, 1)
	return set
}

// seeds returns the processes that belong by group or marker (and the
// shell, if it does).
func (t target) seeds(procs []procInfo) map[int]uint64 {
	self, ownGroup := os.Getpid(), syscall.Getpgrp()
	set := make(map[int]uint64)
	groups := make(map[int]bool)
	if t.leader > 0 {
		groups[t.leader] = true
	}
	var buf []byte
	for _, p := range procs {
		if p.start < t.since || p.pid == self {
			continue
		}
		if t.shell > 0 && p.pid == t.shell {
			if t.withShell && p.start == t.shellStart {
				set[p.pid] = p.start
			}
			continue
		}
		if p.pid == t.leader || groups[p.pgid] || (len(t.marker) > 0 && environHas(p.pid, t.marker, &buf)) {
			set[p.pid] = p.start
			if p.pgid != ownGroup && p.pgid != t.shell {
				groups[p.pgid] = true
			}
		}
	}
	for _, p := range procs {
		if _, in := set[p.pid]; !in && groups[p.pgid] && p.start >= t.since && p.pid != self {
			set[p.pid] = p.start
		}
	}
	return set
}

// addDescendants adds what descends from the processes in set, and the
// shell's children started since childSince.
func (t target) addDescendants(procs []procInfo, set map[int]uint64) {
	self := os.Getpid()
	children := make(map[int][]procInfo)
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
	}
	queue := make([]int, 0, len(set)+1)
	for pid := range set {
		if pid != t.shell {
			queue = append(queue, pid)
		}
	}
	add := func(c procInfo) {
		if _, in := set[c.pid]; !in && c.pid != self {
			set[c.pid] = c.start
			queue = append(queue, c.pid)
		}
	}
	if t.shell > 0 {
		for _, c := range children[t.shell] {
			if st, ok := t.earlier[c.pid]; c.start >= t.childSince && (!ok || st != c.start) {
				add(c)
			}
		}
	}
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range children[pid] {
			add(c)
		}
	}
}

// killTree stops t's processes: SIGTERM (and SIGCONT, so stopped ones can
// act on it), up to grace for them to exit, then SIGKILL until none is
// left, looking again each round for children forked in the meantime. It
// returns how many processes it signalled.
//
// Each process gets SIGTERM once: a process in the leader's group gets it
// through the group only. bash runs its EXIT trap (which saves the
// session's state) on the first SIGTERM, but a second one arriving before
// the trap has set TERM to ignored would end bash half-way through the save.
//
// The session's bash (t.withShell) is spared the first SIGKILL rounds:
// what else is left is killed after grace, and bash gets up to
// shellSaveBound more to finish its EXIT trap. The save takes milliseconds,
// but on a loaded machine a bash starved of CPU needed more than grace
// (250 ms), and the SIGKILL then lost the command's cd and variables
// (TestTimedOutCommandKeepsCd and TestTwoBashesTimeout failed at load 17–90).
func killTree(t target, grace time.Duration) int {
	signalled := make(map[int]bool)
	send := func(sig syscall.Signal, spare int) int {
		m := t.members()
		delete(m, spare)
		for pid, start := range m {
			// Re-check the start time just before signalling: the pid must
			// still be the process we listed.
			now, group := procStartGroup(pid)
			if procListing && now != start {
				continue
			}
			signalled[pid] = true
			if sig == syscall.SIGTERM && t.leader > 0 && group == t.leader {
				continue // the group signal below reaches it
			}
			_ = syscall.Kill(pid, sig)
		}
		// The group last: signalling it first could let a process die and
		// be reaped before it was counted.
		if t.leader > 0 {
			_ = syscall.Kill(-t.leader, sig)
		}
		return len(m)
	}
	if send(syscall.SIGTERM, 0) == 0 && procListing {
		return 0
	}
	if t.leader > 0 {
		_ = syscall.Kill(-t.leader, syscall.SIGCONT)
	}
	for pid := range signalled {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		if procListing && len(t.members()) == 0 {
			return len(signalled)
		}
	}
	if t.withShell && t.shell > 0 && procListing {
		killRounds(func() int { return send(syscall.SIGKILL, t.shell) })
		for deadline := time.Now().Add(shellSaveBound); time.Now().Before(deadline); {
			if !procAlive(t.shell, t.shellStart) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	killRounds(func() int { return send(syscall.SIGKILL, 0) })
	return len(signalled)
}

// shellSaveBound is how long the session's bash may take, after the
// command's other processes are killed, to finish the EXIT trap that saves
// its state. It bounds a hang (a command's own EXIT trap that never ends),
// not a speed: the save takes milliseconds when bash gets the CPU.
const shellSaveBound = 5 * time.Second

// killRounds sends SIGKILL (send) until no process is left, 20 rounds at
// most.
func killRounds(send func() int) {
	for range 20 {
		if send() == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}
