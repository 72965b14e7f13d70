package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/sandbox"
)

// run is one command in flight.
type run struct {
	token      string
	seq        int
	label      string
	proc       *bashProc // the session's bash that runs it
	pid        int       // that bash's pid
	startTicks uint64    // that bash's start time, in clock ticks after boot
	began      time.Time
	ticks      uint64 // when it began, in clock ticks after boot
	capture    *capture
	live       *live
	pump       *pump
	fifo       string       // the output FIFO's path
	fifoIno    uint64       // its inode, as olly opened it
	hold       int          // olly's own writer (a raw fd: never written), so the FIFO has no early end
	holding    bool         // hold is open
	want       sandbox.Spec // the sandbox it asks for (wantSpec)
	spec       sandbox.Spec // the sandbox it runs in (pinned)
	done       *frame       // bash's D frame, when the command ended with bash alive
	exit       *exitRecord  // what the EXIT trap recorded, when bash ended during it
	broken     error        // bash broke the protocol (a command meddled with it)
	newest     bool         // its bash was made the session's newest state (gen): olly asked for a save (flag 1), or bash saved unasked (savedUnasked)
	tookState  bool         // its bash takes over a state before it (restored at its start, or a sync)

	facts safety.ShellFacts // what safety found about the command (stateless.go)
}

// pattern returns the os.CreateTemp pattern for one of r's files.
func (r *run) pattern(kind string) string {
	return fmt.Sprintf("shell-%s-%d-%s-*.log", r.label, r.seq, kind)
}

// start hands the command to the session's bash (starting one if there is
// none, or if the sandbox it runs in is not the one this command needs),
// with stdout and stderr on a FIFO of its own, so they interleave as
// written and background jobs keep only this command's output open.
func (s *Shell) start(command string, facts safety.ShellFacts, dir string, policy sandbox.Policy, writable []string, onOutput func([]byte)) (*run, error) {
	if err := s.prepare(); err != nil {
		return nil, err
	}
	want := s.wantSpec(policy, writable)
	s.seq++
	// The token's random part (crypto/rand) makes the next command's
	// token unguessable from this one's OLLY_SHELL_RUN.
	r := &run{token: fmt.Sprintf("%s.%d.%s", s.token, s.seq, newToken()), seq: s.seq, label: fileLabel(s.id), want: want, facts: facts}
	r.live = startLive(onOutput, s.m.opts.LiveInterval)
	r.capture = newCapture(s.m.opts.MaxOutputBytes, s.m.opts.Limits, s.m.artifactDir, r.pattern("out"), r.live)
	for attempt := 0; ; attempt++ {
		err := s.send(r, command, dir)
		if err == nil || attempt == 1 || !errors.Is(err, errNotStarted) {
			if err != nil {
				s.dropOutput(r)
				r.live.close()
			}
			return r, err
		}
	}
}

// send makes sure the session has a bash for r's sandbox and passes it
// the command. A bash that is found dead, or that dies before it began the
// command, is replaced (errNotStarted: the caller tries once more).
func (s *Shell) send(r *run, command, dir string) error {
	spec, err := s.pick(r.want, dir)
	if err != nil {
		return err
	}
	r.spec = spec
	r.proc, r.pid, r.startTicks = s.proc, s.proc.pid, s.proc.start
	if filepath.Dir(r.fifo) != s.proc.dir {
		if err := s.openOutput(r); err != nil {
			return err
		}
	}
	sync, err := s.syncInto(r.proc)
	if err != nil {
		s.dropProc(nil)
		return errNotStarted
	}
	change, names := true, []string(nil)
	if s.saved && sync == "" && r.facts.Stateless {
		change, names = false, r.facts.Names
	}
	save := "1"
	if !change {
		save = "0"
	}
	fields := append([]string{r.token, dir, r.fifo, save, sync, command}, names...)
	req := strings.Join(fields, "\x00") + "\x00"
	if err := r.proc.writeRequest([]byte(req)); err != nil {
		return fmt.Errorf("shell: write command: %w", err)
	}
	r.began, r.ticks = time.Now(), nowTicks()
	r.tookState = sync != "" || (r.proc.restored && !r.proc.used)
	r.proc.expectBegin(r.token)
	if s.m.beforeWake != nil {
		s.m.beforeWake(r.proc)
	}
	if err := r.proc.send(); err != nil {
		// bash ended before olly woke it. A new bash that restored a
		// state at its start and ended by itself failed on that state,
		// as when it ends after the wake (retryUnbegun): on a loaded
		// machine it often gets that far before olly writes the wake
		// byte, and the state must be dropped then too, or the next
		// attempt restores it and fails the same way (the Go error
		// errNotStarted). A sync is read only after the wake: no bash
		// failed on one here.
		s.dropUnbegun(r.proc.restored && !r.proc.used)
		return errNotStarted
	}
	r.proc.used = true
	s.saved = s.saved || change
	r.newest = change
	if change {
		s.gen++ // this command may change the state: its bash holds the newest
	}
	r.proc.gen = s.gen
	return nil
}

// savedUnasked records a save bash made after r though olly did not ask
// for one (save flag 0: bash found one of the command's names a function
// or an alias, or it exited during the command and its EXIT trap saved):
// that save may hold a change, so r's bash holds the session's newest
// state, which the other bash must take over before its next command.
// A forged save only makes the other bash take over this one's state,
// as it would after any saved command (from a read-only bash as data).
func (s *Shell) savedUnasked(r *run) {
	if r.newest || r.proc == nil {
		return
	}
	r.newest = true // once per command
	s.gen++
	r.proc.gen = s.gen
}

// dropProc lets go of the session's current bash (stopping it if it
// still runs) and keeps the newest state it saved for the next one. r is
// the command it was running when it ended, if any.
func (s *Shell) dropProc(r *run) {
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	s.drop(p, r)
}

// drop stops bash p and keeps its newest state if it holds the session's
// newest (an idle bash behind it has nothing to keep).
func (s *Shell) drop(p *bashProc, r *run) {
	p.stop(s.m.opts.KillGrace)
	slot := p.savedSlot()
	if r != nil {
		if b, ok := readExitRecord(p); ok {
			if rec, ok := parseExitRecord(b); ok && rec.token == r.token {
				r.exit, slot = &rec, rec.slot
				s.savedUnasked(r)
			}
		}
	}
	if p.gen < s.gen {
		slot = -1
	}
	s.keepState(p, slot)
}

// prepare creates the state directory and temporary folder on first use,
// and ends what a crashed olly left running for the session.
func (s *Shell) prepare() error {
	if s.prepared {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("shell: create state directory: %w", err)
	}
	if s.tmpDir == "" {
		if err := s.makeTmpDir(); err != nil {
			return err
		}
	}
	if _, err := s.endLeftovers(); err != nil {
		return err
	}
	s.prepared = true
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
