package shell

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// driverScript is the bash program of a session's shell; see its comments
// and docs/shell.md.
//
//go:embed driver.bash
var driverSource string

// driverScript is driverSource with the names a data-only hand-over
// leaves in place filled in (driverDenyList).
var driverScript = strings.Replace(driverSource, "__OLLY_KEEP__)", driverDenyList()+")", 1)

// frameDrain is how long frames already written by a bash that has exited
// may take to be read: they are in the pipe, so this is only a bound.
const frameDrain = 50 * time.Millisecond

// bashProc is one long-lived bash of a session, confined by one sandbox
// spec for its whole life.
type bashProc struct {
	cmd   *exec.Cmd
	pid   int
	start uint64       // clock ticks after boot
	spec  sandbox.Spec // the spec it runs under, pinned (without its own folder)
	// want is the request spec was pinned from (wantSpec); pinLost: the
	// pinning dropped a place of it (see fits).
	want    sandbox.Spec
	pinLost bool
	// dir is this bash's own state folder (request, output FIFOs, saved
	// state, exit record): only this bash's spec may write it.
	dir string
	// fresh: started without the session's state, which a sandboxed bash
	// wrote and this unsandboxed one must not trust.
	fresh bool
	// restored: it took over a state at its start (driver.bash's slot
	// argument); used: it was sent a command. Guarded by the shell's sem.
	restored, used bool
	// handNote says what a hand-over from a read-only bash's state left
	// behind (handover.go), told with the next command's result.
	handNote string
	// nested is what the sandbox's search for nested repositories found
	// for this bash (nil: no search); its Cut is told with the first
	// command, and Explain reads the refusals with it.
	nested    *sandbox.Nested
	cutIsTold bool
	// nestedStale: a nested repository was found since this bash started
	// (markNestedStale), which its sandbox does not protect: the next
	// command gets a new bash.
	nestedStale bool
	// stamps are the directories whose later entries the sandbox domain
	// does not cover, and the allowed places that were missing: a change
	// to either means a new bash (see confine.go).
	stamps []*dirStamp

	wake *os.File // write end of the wake pipe (bash's fd 10)
	fr   *os.File // read end of the frame pipe (bash's stdout outside commands)
	// spare is the read end of the output FIFO spareFifo of the previous
	// command, which ended: the next command uses it again (fifo.go).
	// Guarded by the shell's sem.
	spare     *os.File
	spareFifo string
	spareIno  uint64
	// req is olly's descriptor of the request file (bash reads it through
	// one of its own), reqEnd the length of the last request: see
	// writeRequest. Guarded by the shell's sem.
	req    int
	reqEnd int64

	exited  chan struct{} // closed once bash has exited; then waitErr is set
	waitErr error
	frames  chan frame    // B and D frames; closed when the reader stops
	quit    chan struct{} // closed when olly drops the process
	readErr error         // why the reader stopped (set before frames closes)
	// hello is closed once bash's first frame (V: its version) was read,
	// or the reader stopped without one; then version and versionOK are
	// set.
	hello     chan struct{}
	version   [2]int
	versionOK bool

	mu sync.Mutex
	// expect is the token of the request olly sent last, begun that token
	// once its B frame came: the reader keeps that B frame (see read).
	expect, begun string
	saved         int           // the last state slot bash reported saved, -1 for none
	savedTok      string        // the token of that S frame
	savec         chan struct{} // poked at each S frame
	wg            sync.WaitGroup

	// Guarded by the shell's sem. gen is the generation of the session's
	// state this bash holds (Shell.gen is the newest); saveTok the token
	// of its last command followed by a save (its D frame said so).
	gen     uint64
	saveTok string
}

// startProc starts the session's bash under spec, in directory dir, in a
// state folder of its own, restoring the session's last saved state if
// this bash may trust it (restoreInto).
func (s *Shell) startProc(spec sandbox.Spec, dir string) (*bashProc, error) {
	own, err := s.newProcDir()
	if err != nil {
		return nil, err
	}
	fds, err := openChannels(own)
	if err != nil {
		_ = os.RemoveAll(own)
		return nil, err
	}
	restore, env, fresh, note := s.restoreInto(own, spec)
	forced := append(forcedEnv(), "TMPDIR="+s.tmpDir, "TMP="+s.tmpDir, "TEMP="+s.tmpDir)
	args := append([]string{"--noprofile", "--norc", "-c", driverScript, "bash", own, restore}, forced...)
	cmd := exec.Command(s.m.shellPath, args...)
	cmd.Dir = dir
	cmd.Env = append(commandEnv(env, s.m.shlvl, dir, s.token+".0"), forced[len(forced)-3:]...)
	// Descriptors (driver.bash): 0 and 2 /dev/null, 1 the frame pipe, 3
	// the wake pipe, 4 the request file, 5 /dev/null.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = fds.null, fds.frW, fds.null
	cmd.ExtraFiles = []*os.File{fds.wakeR, fds.reqR, fds.null}
	// Pdeathsig: if olly dies, even by SIGKILL, the kernel kills bash
	// (what bash started is ended by the next olly, see endLeftovers).
	cmd.SysProcAttr = sysProcAttr()
	// One plan: the stamps watch the directories the rules split, taken
	// before the rules are built so a change in between is seen.
	started := withOwnDir(spec, own)
	plan := s.m.opts.Sandbox.PlanStart(started)
	stamps := stampsFor(started, plan.Grants(), sandbox.Home())
	waitc, err := s.m.opts.Sandbox.StartPlanned(cmd, plan)
	fds.closeBashEnds()
	if err != nil {
		fds.closeOllyEnds()
		_ = os.RemoveAll(own)
		return nil, fmt.Errorf("shell: could not start %s: %w", s.m.shellPath, err)
	}
	p := &bashProc{
		cmd: cmd, pid: cmd.Process.Pid, spec: spec, dir: own, fresh: fresh, restored: restore != "", handNote: note, stamps: stamps, nested: plan.Nested(),
		wake: fds.wakeW, fr: fds.frR, req: fds.reqW, exited: make(chan struct{}),
		frames: make(chan frame, 4), quit: make(chan struct{}), saved: -1, hello: make(chan struct{}),
		savec: make(chan struct{}, 1), gen: s.gen,
	}
	// Read before anyone waits for bash, so it cannot have been reaped.
	p.start = procStart(p.pid)
	p.wg.Go(func() {
		p.waitErr = <-waitc
		close(p.exited)
	})
	p.wg.Go(p.read)
	if s.since == 0 {
		s.since = p.start
	}
	s.leaders = append(s.leaders, p.pid)
	s.leaderStarts = append(s.leaderStarts, groupRecord{Pgid: p.pid, Start: p.start})
	s.record()
	if !s.m.bashChecked() {
		if err := s.checkBash(p); err != nil {
			p.stop(s.m.opts.KillGrace)
			_ = os.RemoveAll(own)
			return nil, err
		}
	}
	return p, nil
}

// helloWait bounds how long the first bash of a manager may take to say
// which version it is.
const helloWait = 10 * time.Second

// checkBash waits for the version p's driver reports first (the V frame),
// once per manager: a program that is not bash, or a bash older than 4.4,
// is refused with a message saying what to install.
func (s *Shell) checkBash(p *bashProc) error {
	t := time.NewTimer(helloWait)
	defer t.Stop()
	select {
	case <-p.hello:
	case <-t.C:
		return fmt.Errorf("shell: %s did not start within %s; check that it is bash 4.4 or newer", s.m.shellPath, helloWait)
	}
	var exitErr error
	if !p.versionOK {
		select {
		case <-p.exited:
			exitErr = p.waitErr
		case <-time.After(frameDrain):
		}
	}
	return s.m.checkVersion(p.version, p.versionOK, exitErr)
}

// read passes bash's frames on until the pipe fails or olly drops the
// process; S frames it keeps itself, since they arrive after Run returned.
func (p *bashProc) read() {
	defer close(p.frames)
	br := bufio.NewReader(p.fr)
	f, err := readFrame(br)
	if err == nil && f.kind != 'V' {
		err = fmt.Errorf("%w: %q before the version", errBadFrame, f.kind)
	}
	if err != nil {
		p.readErr = err
		close(p.hello)
		return
	}
	p.version, p.versionOK = f.version, true
	close(p.hello)
	for {
		f, err := readFrame(br)
		if err == nil && f.kind == 'V' {
			err = fmt.Errorf("%w: a second version frame", errBadFrame)
		}
		if err != nil {
			p.readErr = err
			return
		}
		if f.kind == 'B' && p.takeBegin(f.token) {
			continue
		}
		if f.kind == 'S' {
			p.mu.Lock()
			p.saved, p.savedTok = f.slot, f.token
			p.mu.Unlock()
			select {
			case p.savec <- struct{}{}:
			default:
			}
			continue
		}
		select {
		case p.frames <- f:
		case <-p.quit:
			return
		}
	}
}

// takeBegin keeps the B frame of the request olly sent last, the first
// one for it, instead of passing it on: nobody waits for it (the command
// waiting for its D frame is not woken, a thread hand-off saved), and the
// command learns it began from begunWith. Any other B frame is passed on,
// for the command to refuse.
func (p *bashProc) takeBegin(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.expect == "" || token != p.expect || p.begun != "" {
		return false
	}
	p.begun = token
	return true
}

// expectBegin notes the token of the request about to be sent.
func (p *bashProc) expectBegin(token string) {
	p.mu.Lock()
	p.expect, p.begun = token, ""
	p.mu.Unlock()
}

// begunWith reports whether the B frame of token came (takeBegin).
func (p *bashProc) begunWith(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.begun == token
}

// waitSaved waits, up to d, for the save that p's last command announced
// (its D frame), and returns the slot of p's newest complete state (-1:
// it never saved); ok is false when p exited, stop closed (nil: never)
// or d passed first.
func (p *bashProc) waitSaved(d time.Duration, stop <-chan struct{}) (slot int, ok bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		p.mu.Lock()
		slot, tok := p.saved, p.savedTok
		p.mu.Unlock()
		if tok == p.saveTok {
			return slot, true
		}
		select {
		case <-p.savec:
		case <-p.exited:
			return -1, false
		case <-stop:
			return -1, false
		case <-t.C:
			return -1, false
		}
	}
}

// savedSlot returns the last slot bash reported saved; call it once the
// frames are drained.
func (p *bashProc) savedSlot() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.saved
}

func (p *bashProc) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// drain lets the reader take what the exited bash wrote, then stops it.
// A background job that inherited a copy of the frame pipe could keep it
// open for hours, so the end is a deadline, not end of file.
func (p *bashProc) drain() {
	_ = p.fr.SetReadDeadline(time.Now().Add(frameDrain))
}

// send asks bash to run the request already written to its folder's req.
func (p *bashProc) send() error {
	_, err := p.wake.Write([]byte{'x'})
	return err
}

// wakePending reports whether the wake byte is still in the pipe (bash
// has not read it yet: it is busy).
func (p *bashProc) wakePending() bool { return pipePending(p.wake) }

// stop ends bash: politely (end of requests: it exits when idle), then by
// SIGKILL after grace. What its commands left running in the background
// is not touched here (Close ends it).
func (p *bashProc) stop(grace time.Duration) {
	_ = p.wake.Close()
	if !p.dead() {
		t := time.NewTimer(grace)
		select {
		case <-p.exited:
		case <-t.C:
			if now := procStart(p.pid); now == p.start || !procListing {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
			<-p.exited
		}
		t.Stop()
	}
	p.release()
}

// release stops the goroutines of an exited bash and closes its pipes.
func (p *bashProc) release() {
	p.drain()
	close(p.quit)
	p.wg.Wait()
	_ = p.fr.Close()
	_ = p.wake.Close()
	if rd, _, _ := p.takeSpare(); rd != nil {
		_ = rd.Close()
	}
	p.closeRequest()
}

// endedOnItsOwn reports whether bash has ended by exiting (the driver
// leaving its loop, or bash stopping on an error), not by a signal.
func (p *bashProc) endedOnItsOwn() bool {
	if !p.dead() {
		return false
	}
	_, sig := p.exitStatus()
	return sig == ""
}

// ranDriver reports whether bash began olly's driver: its first frame,
// the version, came (it is written before the state is restored). It
// waits up to d for the reader to take that frame, or to find the pipe
// ended: for a bash that has exited this is at once, unless olly's reader
// has not run yet (a loaded machine), which must not be taken for a bash
// that never ran the driver (dropUnbegun). Call it before stop, whose
// drain may cut the reader short.
func (p *bashProc) ranDriver(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.hello:
		return p.versionOK
	case <-t.C:
		return false
	}
}

// exitStatus describes how bash ended: its exit code, or -1 and the
// signal that killed it.
func (p *bashProc) exitStatus() (code int, signal string) {
	ps := p.cmd.ProcessState
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

// restartEnv is the environment a restarted bash starts with: the state
// file it restores declares every exported variable, so only what bash
// cannot declare is taken from olly's (names that are not identifiers);
// exported functions come from the state file too.
func restartEnv(base []string) []string {
	var env []string
	for _, kv := range base {
		name := envName(kv)
		if !isIdentifier(name) && !strings.HasPrefix(name, "BASH_FUNC_") {
			env = append(env, kv)
		}
	}
	return env
}

func isIdentifier(s string) bool {
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

var errNotStarted = errors.New("shell: bash ended before it began the command")
