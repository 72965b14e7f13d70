package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// stopReason says why olly stopped a command, if it did.
type stopReason int

const (
	stopNone stopReason = iota
	stopTimeout
	stopCanceled
	stopClosed
	stopCapped
)

// wait waits for the command to end (bash's D frame, or bash exiting), or
// stops it on timeout, cancellation, shell close or output cap.
func (s *Shell) wait(ctx context.Context, r *run, timeout time.Duration, res *Result) stopReason {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	why := stopNone
	frames := r.proc.frames
	begin := time.NewTicker(beginWait)
	defer begin.Stop()
	for why == stopNone && !s.ended(r) {
		select {
		case <-begin.C:
			if !r.hasBegun() && !r.proc.wakePending() {
				r.broken = errLostRequest
			}
		case f, ok := <-frames:
			s.onFrame(r, f, ok)
			if !ok {
				frames = nil // the pipe ended: bash exited, or exec'd a program
			}
		case <-r.proc.exited:
		case <-timer:
			why = stopTimeout
		case <-ctx.Done():
			why = stopCanceled
		case <-s.closing:
			why = stopClosed
		case <-r.capture.over():
			why = stopCapped
		}
	}
	if why != stopNone && !s.finishedJustNow(r) {
		res.Killed = killTree(s.runTarget(r, true), s.m.opts.KillGrace)
		<-r.proc.exited
	} else if why != stopNone {
		// The command ended just as the stop came: it ran to the end,
		// and what it left behind is reported as background. (Output
		// past the cap is still noted, by describeStop.)
		why = stopNone
	}
	if r.broken != nil && !r.proc.dead() {
		// A command meddled with the protocol: this bash cannot be
		// trusted to say when the next command ends.
		killTree(s.runTarget(r, true), s.m.opts.KillGrace)
		<-r.proc.exited
	}
	if r.proc.dead() {
		// Take what it wrote before it ended (B, perhaps D).
		r.proc.drain()
		for f := range r.proc.frames {
			s.onFrame(r, f, true)
		}
	}
	res.Duration = time.Since(r.began)
	res.Timeout = timeout
	res.TimedOut = why == stopTimeout
	res.Canceled = why == stopCanceled || why == stopClosed
	res.OutputCapped = why == stopCapped
	return why
}

// beginWait is how long bash may take to begin a command after it has
// taken the wake byte (it needs microseconds) before olly decides that
// something else took it: a job of an earlier command that reads bash's
// copy of the pipe. The command is then run in a new bash.
const beginWait = 2 * time.Second

var errLostRequest = errors.New("shell: the session's bash did not take the command")

// ended reports whether r is over: bash said so, exited, or broke the
// protocol.
func (s *Shell) ended(r *run) bool {
	return r.done != nil || r.broken != nil || r.proc.dead()
}

// hasBegun reports whether bash began r: its B frame came, kept by the
// reader (takeBegin).
func (r *run) hasBegun() bool {
	return r.proc.begunWith(r.token)
}

// onFrame takes one frame of r's bash (ok false: the reader stopped).
func (s *Shell) onFrame(r *run, f frame, ok bool) {
	switch {
	case !ok:
		if !r.proc.dead() && !errors.Is(r.proc.readErr, io.EOF) {
			r.broken = r.proc.readErr
			if r.broken == nil {
				r.broken = errBadFrame
			}
		}
	case f.kind == 'B' || f.token != r.token || f.kind == 'D' && !r.hasBegun():
		// The reader keeps the one B frame that may come (takeBegin):
		// any B frame passed on is a second one, or another command's.
		r.broken = fmt.Errorf("%w: unexpected %c frame", errBadFrame, f.kind)
	default:
		r.done = &f
		if f.save {
			r.proc.saveTok = f.token
			s.savedUnasked(r)
		}
	}
}

// finishedJustNow takes the frames that are already there when a stop
// comes, and reports whether the command ended meanwhile.
func (s *Shell) finishedJustNow(r *run) bool {
	for !s.ended(r) {
		select {
		case f, ok := <-r.proc.frames:
			s.onFrame(r, f, ok)
			if !ok && !s.ended(r) {
				return false
			}
		default:
			return false
		}
	}
	return r.done != nil || (r.proc.dead() && r.broken == nil)
}

// runTarget describes the processes of command r: those carrying its
// marker and what descends from them, but not the session's bash (whose
// process group also holds earlier commands' jobs) unless withShell.
func (s *Shell) runTarget(r *run, withShell bool) target {
	t := target{
		marker: []byte("OLLY_SHELL_RUN=" + r.token + "\x00"), since: r.startTicks,
		shell: r.pid, shellStart: r.startTicks, childSince: r.ticks, withShell: withShell,
		earlier: s.jobs,
	}
	if withShell && !procListing {
		t.leader = r.pid // without /proc only bash's whole process group can be found
	}
	return t
}

// maxJobs bounds how many earlier jobs a shell remembers.
const maxJobs = 1024

// noteJobs remembers the processes a command left running (see
// target.earlier). Entries of processes that ended are harmless (a
// recycled pid has another start time); the record starts again when it
// would grow past maxJobs.
func (s *Shell) noteJobs(bg map[int]uint64) {
	if len(bg) == 0 {
		return
	}
	if s.jobs == nil || len(s.jobs)+len(bg) > maxJobs {
		s.jobs = make(map[int]uint64, len(bg))
	}
	for pid, start := range bg {
		if len(s.jobs) >= maxJobs {
			break
		}
		s.jobs[pid] = start
	}
}
