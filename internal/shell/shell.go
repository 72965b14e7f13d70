package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/sandbox"
)

// RunOptions configure one command.
type RunOptions struct {
	// Cwd is where the command starts, relative to the primary workspace
	// root (or absolute, inside a root). Empty means where the previous
	// command ended. It works like typing "cd Cwd &&" first: the command's
	// final directory is where the next one starts.
	Cwd string
	// Timeout stops the command and everything it started; zero means the
	// manager's default, negative means none.
	Timeout time.Duration
	// OnOutput receives stdout and stderr as the command writes them:
	// raw bytes (escape sequences included), coalesced to at most one call
	// per LiveInterval, cut on UTF-8 boundaries. The slice is the
	// callback's to keep. It is called from another goroutine, never after
	// Run returns, and should not block for long: when it falls far behind,
	// older output is skipped (the Result still has it).
	OnOutput func(chunk []byte)
	// Policy is the sandbox the command runs in when the manager has one:
	// sandbox.ReadOnly, sandbox.WorkspaceWrite ("" means this), or
	// sandbox.Unsandboxed (only for what a person approved so).
	Policy sandbox.Policy
	// Writable are more places a workspace-write command may change
	// besides the manager's roots: the workspace's extra roots and the
	// directories a person allowed (workspace.Dirs), read per command.
	Writable []string
	// Check is the caller's safety.Check of the command, if it made one:
	// its ShellFacts (noexec, stateless) are used instead of parsing the
	// command again.
	Check *safety.Checked
}

// Shell is one session's terminal. Commands run one at a time; cwd,
// exported and shell variables, functions and aliases carry over from one
// to the next (see docs/shell.md for what does not).
type Shell struct {
	m     *Manager
	id    string
	dir   string // private state directory
	token string // marks this session's processes

	sem       chan struct{} // held by the running command, and forever by Close
	closing   chan struct{}
	closeOnce sync.Once
	closeErr  error

	// Guarded by sem; cwd is also guarded by cwdMu for Cwd.
	cwdMu sync.Mutex
	seq   int
	cwd   string
	proc  *bashProc // the session's bash, nil until a command needs one
	// idle is the session's other sandboxed bash (read-only while proc is
	// workspace-write, or the reverse), kept for the next command under
	// its policy (policies.go); gen numbers the session's state: it grows
	// with every command that may change it, and with every save bash made
	// after a command on its own (savedUnasked).
	idle *bashProc
	gen  uint64
	// procN numbers the session's bash processes (their folders).
	procN int
	// hasState: STATE_DIR/state holds the newest complete state a bash of
	// the session saved; stateConfined: a sandboxed bash saved it;
	// stateRO: a read-only one did. hasWState: STATE_DIR/wstate holds the
	// newest state a bash that is not read-only saved (tookState).
	hasState, stateConfined, stateRO, hasWState bool
	// handBase is what a hand-over from a read-only bash compares with,
	// from wstate (handBaseline).
	handBase *handBase
	// stateLost: forgetState dropped the session's state, which the next
	// result says (stateLostNote), whichever command's bash failed on it
	// (a command's, or prestart's warm-up, whose result nobody reads).
	stateLost bool
	// kept is the save STATE_DIR/state holds when checkpoint copied it
	// there (zero when anything else wrote it): a bash that goes idle
	// again without a newer save is not copied again (checkpoint).
	kept keptSave
	// saved: a command the session ran was followed by a save (the first
	// always is; then commands that cannot change the state skip it).
	saved bool
	since uint64 // start time of the session's first bash
	// jobs are the processes earlier commands left running (pid → start
	// time), so a later command's stop does not take them for its own.
	jobs    map[int]uint64
	leaders []int // the session's bash pids (their process groups)
	// leaderStarts are leaders with their start times, for the RunDir
	// record.
	leaderStarts []groupRecord
	tmpDir       string // the session's private TMPDIR
	prepared     bool   // prepare succeeded: state and temporary folders made

	pmu   sync.Mutex
	pumps map[*pump]struct{}
	wg    sync.WaitGroup
}

func newShell(m *Manager, id, dir string) *Shell {
	return &Shell{
		m:       m,
		id:      id,
		dir:     dir,
		token:   newToken(),
		sem:     make(chan struct{}, 1),
		closing: make(chan struct{}),
		cwd:     m.roots.primary(),
		pumps:   make(map[*pump]struct{}),
	}
}

// ID returns the session id the shell belongs to.
func (s *Shell) ID() string { return s.id }

// Cwd returns where the next command will start. It does not wait for a
// running command.
func (s *Shell) Cwd() string {
	s.cwdMu.Lock()
	defer s.cwdMu.Unlock()
	return s.cwd
}

// setCwd changes where the next command starts; only the command holding
// sem calls it, so reads under sem need no lock.
func (s *Shell) setCwd(dir string) {
	s.cwdMu.Lock()
	s.cwd = dir
	s.cwdMu.Unlock()
}

// lock waits for the shell to be free: commands run one at a time, as in a
// terminal.
func (s *Shell) lock(ctx context.Context) error {
	select {
	case <-s.closing:
		return ErrClosed
	default:
	}
	select {
	case s.sem <- struct{}{}:
	case <-s.closing:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("shell: wait for the previous command: %w", ctx.Err())
	}
	select {
	case <-s.closing:
		s.unlock()
		return ErrClosed
	default:
		return nil
	}
}

func (s *Shell) unlock() { <-s.sem }

// Run runs command in the session's shell and reports what happened. A
// command that fails, times out, is cancelled or cannot start in the
// requested directory is a Result (the model can act on it); errors are
// for what the model cannot fix: bash missing, the state directory not
// writable, the shell closed, ctx done before the command started.
//
// Cancelling ctx stops the command and everything it started, as a timeout
// does, and Run returns within about KillGrace (up to shellSaveBound more
// while bash, starved of CPU, finishes saving its state).
func (s *Shell) Run(ctx context.Context, command string, opts RunOptions) (*Result, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("shell: the command was not started: %w", err)
	}
	res := &Result{Command: command, ExitCode: -1, StartCwd: s.cwd, Cwd: s.cwd}
	if strings.IndexByte(command, 0) >= 0 {
		res.Rejected = "the command contains a NUL byte, which bash cannot run"
		return res, nil
	}
	facts := commandFacts(command, opts.Check)
	if facts.Noexec {
		command = runInSubshell(command)
		res.Notes = append(res.Notes, noexecNote)
		facts.Stateless = false
	}
	start, reason := s.startDir(opts.Cwd, opts.Policy, res)
	if reason != "" {
		res.Rejected = reason
		return res, nil
	}
	res.StartCwd = start
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = s.m.opts.DefaultTimeout
	}
	r, err := s.start(command, facts, start, opts.Policy, opts.Writable, opts.OnOutput)
	if err != nil {
		return nil, err
	}
	why := s.retryUnbegun(ctx, r, command, start, timeout, s.wait(ctx, r, timeout, res), res)
	s.finish(r, why, res)
	if r.proc.fresh {
		r.proc.fresh = false
		res.Notes = append(res.Notes, freshNote)
	}
	if s.stateLost {
		s.stateLost = false
		res.Notes = append(res.Notes, stateLostNote)
	}
	if n := r.proc.handNote; n != "" {
		r.proc.handNote = ""
		res.Notes = append(res.Notes, n)
	}
	if n := r.proc.nested; n != nil && n.Cut != "" && !r.proc.cutIsTold {
		// What the sandbox could not protect is said, not left silent.
		r.proc.cutIsTold = true
		res.Notes = append(res.Notes, "sandbox: "+n.Cut)
	}
	s.explainRefusals(r.spec, r.proc.nested, start, res)
	return res, nil
}

// startDir picks the directory the command starts in: the requested one,
// or where the previous command ended if it still exists. For a command
// outside the sandbox that place is checked against the roots again
// (links followed): it was checked when the previous command ended, but
// a job a sandboxed command left may have made a name in it a link that
// leaves since (TestCwdSwappedLaterDoesNotLeadAnUnsandboxedCommandOut).
func (s *Shell) startDir(req string, policy sandbox.Policy, res *Result) (dir, reason string) {
	if req != "" {
		return s.m.roots.resolve(req)
	}
	if fi, err := os.Stat(s.cwd); err != nil || !fi.IsDir() {
		res.Notes = append(res.Notes, fmt.Sprintf("%s no longer exists; the command ran in %s", s.cwd, s.m.roots.primary()))
		s.setCwd(s.m.roots.primary())
	} else if policy == sandbox.Unsandboxed && !s.m.roots.contains(s.cwd) {
		res.Notes = append(res.Notes, fmt.Sprintf("%s now leads outside the workspace (a link); the command ran in %s", s.cwd, s.m.roots.primary()))
		s.setCwd(s.m.roots.primary())
	}
	return s.cwd, ""
}

// sessionTarget describes every process any command of the session left.
func (s *Shell) sessionTarget() target {
	return target{marker: []byte("OLLY_SHELL_RUN=" + s.token + "."), since: s.since}
}

// finish collects the output, the exit status and the state the command
// left, and writes the notes the model reads.
func (s *Shell) finish(r *run, why stopReason, res *Result) {
	s.closeOutput(r)
	if r.proc.dead() || r.broken != nil {
		s.dropProc(r)
	}
	s.settleOutput(r, why, res)
	s.recycleOutput(r)
	r.live.close()
	text, artifact, err := r.capture.finish()
	res.Output, res.Artifact = text, artifact
	res.TotalLines, res.TotalBytes = r.capture.keep.total, r.capture.raw+r.capture.discarded
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the full output could not be saved: %v", err))
	}
	s.endState(r, why, res)
	s.describeStop(r, why, res)
	s.describeBackground(res)
}

// settleOutput waits briefly for the output pipe to close. If it stays
// open, processes the command started in the background hold it: the
// command has returned all the same (a background job must not hang the
// call), and their further output goes to a log file.
func (s *Shell) settleOutput(r *run, why stopReason, res *Result) {
	eof := r.pump.settle(eofGrace, backlogBound)
	if why == stopNone && (!eof || r.proc.dead() || (r.done != nil && r.done.bg)) {
		bg := s.runTarget(r, false).members()
		res.Background = sortedPids(bg)
		s.noteJobs(bg)
	}
	if eof {
		return
	}
	log, err := newBgLog(s.m.opts.MaxOutputBytes, s.m.artifactDir, r.pattern("bg"))
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("background output is discarded: %v", err))
		r.pump.stop()
		<-r.pump.eof
		return
	}
	if r.pump.detach(log) {
		res.BackgroundLog = log.path()
		return
	}
	_ = log.Close()
	_ = os.Remove(log.path())
}

func (s *Shell) describeStop(r *run, why stopReason, res *Result) {
	killed := plural(res.Killed, "process", "processes")
	switch why {
	case stopTimeout:
		res.Notes = append(res.Notes, fmt.Sprintf("timed out after %s; killed %s", res.Timeout, killed))
	case stopCanceled:
		res.Notes = append(res.Notes, "canceled; killed "+killed)
	case stopClosed:
		res.Notes = append(res.Notes, "the session's shell was closed; killed "+killed)
	case stopCapped:
		res.Notes = append(res.Notes, fmt.Sprintf("output exceeded %s, so the command was stopped; killed %s; the output up to the limit is kept",
			formatBytes(s.m.opts.MaxOutputBytes), killed))
	default:
		select {
		case <-r.capture.over():
			// The command ended on its own just after passing the cap.
			res.OutputCapped = true
			res.Notes = append(res.Notes, fmt.Sprintf("output exceeded %s; the rest was discarded", formatBytes(s.m.opts.MaxOutputBytes)))
		default:
		}
	}
}

// bgExecWait bounds how long describeBackground waits, for all jobs
// together, for those that are still a copy of bash (or a launcher such as
// nohup) to become the programs they run. It is spent only while a job
// still looks like that: in practice a few milliseconds, but on a loaded
// machine a fork and two execs took over 50 ms (a job named "nohup").
const bgExecWait = 200 * time.Millisecond

// bgName names a background process. A job bash has just forked is still
// named like bash until it executes its program (`sleep 1000 &` reads as
// bash for a moment), and a launcher that execs the program it is given
// (`nohup sleep 1000 &`) carries the launcher's name a moment longer; the
// name is read again until deadline, so the note says sleep. A job that
// really is a subshell, or a launcher still running, keeps that name.
func (s *Shell) bgName(pid int, deadline time.Time) string {
	shell := filepath.Base(s.m.shellPath)
	n := procName(pid)
	for (n == shell || execLaunchers[n]) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		n = procName(pid)
	}
	return n
}

// execLaunchers are programs that exec the command they are given, so a
// background job shows their name only until they do.
var execLaunchers = map[string]bool{
	"nohup": true, "setsid": true, "env": true, "nice": true, "ionice": true,
	"stdbuf": true, "chrt": true, "taskset": true,
}

func (s *Shell) describeBackground(res *Result) {
	if len(res.Background) == 0 {
		if res.BackgroundLog != "" {
			res.Notes = append(res.Notes, "something the command started still holds its output; further output goes to "+res.BackgroundLog)
		}
		return
	}
	var names []string
	deadline := time.Now().Add(bgExecWait)
	for i, pid := range res.Background {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(res.Background)-10))
			break
		}
		if n := s.bgName(pid, deadline); n != "" {
			names = append(names, fmt.Sprintf("%d (%s)", pid, n))
		} else {
			names = append(names, fmt.Sprint(pid))
		}
	}
	note := fmt.Sprintf("background processes still running: %s; they are stopped when the session ends", strings.Join(names, ", "))
	if res.BackgroundLog != "" {
		note += "; their further output goes to " + res.BackgroundLog
	}
	res.Notes = append(res.Notes, note)
}

// Close stops the session's shell: a running command is stopped, every
// process the session's commands left running is killed, and the state is
// removed. Later Runs return ErrClosed; Manager.Session returns a fresh
// shell for the same id.
func (s *Shell) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.sem <- struct{}{} // wait for a running command to stop
		s.closeErr = s.shutdown()
		s.m.forget(s)
	})
	return s.closeErr
}

func (s *Shell) shutdown() error {
	switch {
	case procListing && s.since != 0:
		killTree(s.sessionTarget(), s.m.opts.KillGrace)
	case !procListing:
		// Without /proc only the process groups of the session's bash
		// processes can be found.
		for _, l := range s.leaders {
			killTree(target{leader: l}, s.m.opts.KillGrace)
		}
	}
	s.dropProc(nil)
	s.dropIdle()
	s.pmu.Lock()
	for p := range s.pumps {
		p.stop()
	}
	s.pmu.Unlock()
	s.wg.Wait()
	if p := s.recordPath(); p != "" {
		_ = os.Remove(p)
	}
	var errs []error
	if s.tmpDir != "" {
		if err := os.RemoveAll(s.tmpDir); err != nil {
			errs = append(errs, fmt.Errorf("shell: remove the temporary folder of session %s: %w", s.id, err))
		}
	}
	if err := os.RemoveAll(s.dir); err != nil {
		errs = append(errs, fmt.Errorf("shell: remove state of session %s: %w", s.id, err))
	}
	return errors.Join(errs...)
}
