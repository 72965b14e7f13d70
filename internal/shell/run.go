package shell

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// run is one command in flight.
type run struct {
	token      string
	seq        int
	label      string
	cmd        *exec.Cmd
	pid        int
	startTicks uint64 // bash's start time, in clock ticks after boot
	began      time.Time
	capture    *capture
	live       *live
	pump       *pump
	waitc      <-chan error // receives once, when bash has exited
	spec       sandbox.Spec // the sandbox it runs in
}

// pattern returns the os.CreateTemp pattern for one of r's files.
func (r *run) pattern(kind string) string {
	return fmt.Sprintf("shell-%s-%d-%s-*.log", r.label, r.seq, kind)
}

// start writes the command for the wrapper and starts bash in its own
// session (so it has no controlling terminal: a program that would prompt
// on /dev/tty fails instead of waiting) and process group, with stdin from
// /dev/null and stdout and stderr on one pipe, so they interleave as
// written.
func (s *Shell) start(command, dir string, policy sandbox.Policy, writable []string, onOutput func([]byte)) (*run, error) {
	if err := s.prepare(command); err != nil {
		return nil, err
	}
	spec := s.sandboxSpec(policy, writable)
	s.seq++
	r := &run{token: fmt.Sprintf("%s.%d", s.token, s.seq), seq: s.seq, label: fileLabel(s.id), spec: spec}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("shell: create output pipe: %w", err)
	}
	cmd := exec.Command(s.m.shellPath, "--noprofile", "--norc", "-c", wrapperScript, "bash", s.dir, r.token)
	cmd.Dir = dir
	cmd.Env = append(commandEnv(s.env, s.m.shlvl, dir, r.token), "TMPDIR="+s.tmpDir, "TMP="+s.tmpDir, "TEMP="+s.tmpDir)
	cmd.Stdout, cmd.Stderr = pw, pw
	// Pdeathsig: if olly dies, even by SIGKILL, the kernel kills bash
	// (what bash started is ended by the next olly, see endLeftovers).
	cmd.SysProcAttr = sysProcAttr()
	r.began = time.Now()
	waitc, err := s.m.opts.Sandbox.Start(cmd, spec)
	if err != nil {
		_ = pr.Close()
		_ = pw.Close()
		return nil, fmt.Errorf("shell: could not start %s: %w", s.m.shellPath, err)
	}
	// Only the children hold the write end now: the pipe closes when the
	// last of them exits.
	_ = pw.Close()
	r.cmd, r.pid = cmd, cmd.Process.Pid
	// Read before anyone waits for bash, so it cannot have been reaped.
	r.startTicks = procStart(r.pid)
	if s.since == 0 {
		s.since = r.startTicks
	}
	s.record(r)
	r.live = startLive(onOutput, s.m.opts.LiveInterval)
	r.capture = newCapture(s.m.opts.MaxOutputBytes, s.m.opts.Limits, s.m.artifactDir, r.pattern("out"), r.live)
	r.pump = newPump(pr, r.capture)
	s.startPump(r.pump)
	r.waitc = waitc
	return r, nil
}

// prepare creates the state directory on first use and writes the command
// where the wrapper reads it. The previous command's saved files need no
// cleaning: they carry its token, which never matches this command's.
func (s *Shell) prepare(command string) error {
	if s.seq == 0 {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return fmt.Errorf("shell: create state directory: %w", err)
		}
		if err := s.makeTmpDir(); err != nil {
			return err
		}
		if _, err := s.endLeftovers(); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(s.dir, "cmd"), []byte(command), 0o600); err != nil {
		return fmt.Errorf("shell: write command: %w", err)
	}
	return nil
}

// startPump runs p until its pipe is done or the shell closes.
func (s *Shell) startPump(p *pump) {
	s.pmu.Lock()
	s.pumps[p] = struct{}{}
	s.pmu.Unlock()
	s.wg.Go(func() {
		p.run()
		s.pmu.Lock()
		delete(s.pumps, p)
		s.pmu.Unlock()
	})
}

// exitStatus records how bash ended.
func exitStatus(r *run, res *Result) {
	ps := r.cmd.ProcessState
	if ps == nil {
		return
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode, res.Signal = -1, signalName(ws.Signal())
		return
	}
	res.ExitCode = ps.ExitCode()
}

// groupAlive reports whether anything is left in process group pgid. On
// systems whose init does not reap orphans, zombies count too, so callers
// confirm with a process listing.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

func sortedPids(m map[int]uint64) []int {
	pids := make([]int, 0, len(m))
	for pid := range m {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

// signalName names the signals a command is likely to die of.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	default:
		return fmt.Sprintf("signal %d (%s)", int(sig), sig)
	}
}
