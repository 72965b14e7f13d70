package shell

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// endState takes what the command left: how it ended and the directory
// the next command starts in. bash says both in its D frame, or, when it
// exited during the command, in the record its EXIT trap wrote; without
// either (bash killed outright, or replaced by exec) the exit status is
// bash's own and the directory stays where the command started.
func (s *Shell) endState(r *run, why stopReason, res *Result) {
	defer func() { res.Cwd = s.cwd }()
	switch {
	case r.done != nil:
		res.ExitCode = r.done.rc
		s.takeCwd(r.done.pwd, r.pid, res)
	case r.exit != nil:
		if why == stopNone {
			res.ExitCode = r.exit.rc
		} else {
			res.ExitCode, res.Signal = r.proc.exitStatus()
		}
		s.takeCwd(r.exit.pwd, 0, res)
	default:
		if r.proc.dead() {
			res.ExitCode, res.Signal = r.proc.exitStatus()
		}
		s.noteUnsaved(why, res)
	}
	if r.broken != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the command interfered with the shell's channel to olly (%v), so its shell was replaced; the next command starts in %s with the state saved before this one", r.broken, s.cwd))
	}
}

// takeCwd makes end, where the command ended, the next command's start
// if it lies in the workspace. pid is the bash that reported it, still
// running (0: it exited), whose working directory the kernel names
// (roots.containsAt).
func (s *Shell) takeCwd(end string, pid int, res *Result) {
	if end == "" || !filepath.IsAbs(end) {
		return
	}
	if s.m.roots.containsAt(pid, end) {
		s.setCwd(end)
		return
	}
	s.setCwd(s.m.roots.primary())
	res.CwdReset = true
	res.Notes = append(res.Notes, fmt.Sprintf("the command ended in %s, outside the workspace; the next command starts in %s", end, s.cwd))
}

func (s *Shell) noteUnsaved(why stopReason, res *Result) {
	switch {
	case why != stopNone:
		// Stopped before bash could save: say nothing more than the stop.
	case res.Signal != "":
		res.Notes = append(res.Notes, fmt.Sprintf("bash was ended by %s before it saved its state; the next command starts in %s with the variables from before this one", res.Signal, s.cwd))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("the command replaced the shell (exec) or exited from a trap, so its cd and variables were not kept; the next command starts in %s", s.cwd))
	}
}

// statePath is the state file of slot in the folder of the session's
// current bash ("" when there is none).
func (s *Shell) statePath(slot int) string {
	if s.proc == nil {
		return ""
	}
	return filepath.Join(s.proc.dir, fmt.Sprintf("state%d", slot))
}

// retryUnbegun runs command r again in a new bash when its bash ended, or
// lost the request, before it began it (something killed it, or took its
// input, between commands), up to twice. A bash that took over a state
// for r (restored at its start, or synced) and then ended before it
// began r failed on that state: one that made a variable of olly's
// driver readonly stops the driver before its loop, in every bash that
// takes it. That state is dropped (forgetState) and r runs in a bash
// without it, which the result says. A bash killed by a signal did not
// fail on its state (something killed it between commands, before olly
// saw it end), nor did one that ended before olly's driver began (the
// sandbox could not start it): r runs again in a bash that takes the
// state.
func (s *Shell) retryUnbegun(ctx context.Context, r *run, command, start string, timeout time.Duration, why stopReason, res *Result) stopReason {
	for range 2 {
		if why != stopNone || r.hasBegun() || r.done != nil {
			break
		}
		s.dropUnbegun(r.tookState)
		r.broken = nil
		if err := s.send(r, command, start); err != nil {
			break
		}
		why = s.wait(ctx, r, timeout, res)
	}
	return why
}

// dropUnbegun lets go of the session's current bash, which ended, or lost
// the request, before it began the command sent to it; tookState: it took
// over a state for that command. If it then ended by itself (not by a
// signal) after olly's driver began (ranDriver), it failed on that state,
// which is dropped (retryUnbegun). One that ended before (the sandbox's
// helper could not confine it, the exec failed: exit status 126 or 127)
// never read the state, which is kept: dropping it would lose the
// session's variables for a failure that was not theirs, and tell the
// model the state was broken (TestStateKeptWhenBashNeverRanTheDriver).
// p ended, or was killed, before dropProc closes its wake pipe (wait saw
// it end, or the wake write found no reader), so how it ended is its own
// doing; dropProc waits until olly has seen it.
func (s *Shell) dropUnbegun(tookState bool) {
	p := s.proc
	ran := tookState && p.ranDriver(beginWait)
	s.dropProc(nil)
	if ran && p.endedOnItsOwn() {
		s.forgetState()
	}
}

// stateLostNote tells the model that the session's state was dropped.
const stateLostNote = "the shell state saved by the earlier commands could not be restored (the shell ended before it began this command: the state made one of olly's own shell variables readonly, or broke the shell otherwise), so it was dropped: this command ran in a new shell without the earlier commands' variables, functions and aliases (only the working directory); set up again what it needs"

// forgetState makes the session's saved state unused: the next bash
// starts from olly's base environment, and no bash takes it over; the
// next result says so (stateLost).
func (s *Shell) forgetState() {
	s.hasState, s.stateConfined, s.stateRO, s.hasWState = false, false, false, false
	s.handBase = nil
	s.kept = keptSave{}
	s.stateLost = true
}
