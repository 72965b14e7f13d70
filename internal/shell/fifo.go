package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openOutput gives r an output FIFO in the folder of the bash that runs
// it (only that bash's sandbox may write there, so nothing else can put a
// link in its place), with its read end open (for the pump) and a write
// end olly holds until bash has ended the command, so the pipe cannot end
// before bash has opened it. The FIFO of the bash's previous command is
// used again when that pipe ended (every process that had it let go) and
// nothing was written into it since: a job that kept its path (or
// reopened it, through /proc or the folder) and wrote into it between
// the commands would otherwise put those bytes at the head of this
// command's output, so such a FIFO is dropped and a new one made.
// Otherwise one is made. A FIFO made for a bash that was replaced before
// it began the command is dropped first. (A job of this bash that still
// runs can open the output of a later command while it runs all the
// same, by /proc/<bash>/fd/1 or by the path the request names: see
// docs/shell.md, "What a job can do to later commands' output".)
func (s *Shell) openOutput(r *run) error {
	s.dropOutput(r)
	if rd, fifo, ino := r.proc.takeSpare(); rd != nil {
		// Still the FIFO olly made (a command of this bash may have put
		// something else in its place, a link or a file)?
		if hold, err := openHold(fifo); err == nil && fifoIno(hold) == ino && !buffered(rd) {
			_ = rd.SetReadDeadline(time.Time{})
			s.startOutput(r, fifo, ino, rd, hold)
			return nil
		} else if err == nil {
			_ = syscall.Close(hold)
		}
		_ = rd.Close()
		_ = syscall.Unlink(fifo)
	}
	fifo := filepath.Join(r.proc.dir, "o"+strconv.Itoa(r.seq))
	err := syscall.Mkfifo(fifo, 0o600)
	if errors.Is(err, syscall.EEXIST) {
		// Left by a command of the bash (or put there): made afresh.
		_ = os.Remove(fifo)
		err = syscall.Mkfifo(fifo, 0o600)
	}
	if err != nil {
		return fmt.Errorf("shell: create output pipe: %w", err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		_ = syscall.Unlink(fifo)
		return fmt.Errorf("shell: open output pipe: %w", err)
	}
	if betweenOutputOpens != nil {
		betweenOutputOpens(fifo)
	}
	hold, err := openHold(fifo)
	if err != nil {
		_ = rd.Close()
		_ = syscall.Unlink(fifo)
		return fmt.Errorf("shell: open output pipe: %w", err)
	}
	// hold is opened by path: it must be the FIFO rd reads, or bash would
	// write into another one (one a job put there between the two opens,
	// and reads), rd would see its end at once, and the reuse check
	// (same inode as hold) would keep that going for every later command.
	ino := fifoIno(hold)
	if ino == 0 || ino != fileFifoIno(rd) {
		_ = syscall.Close(hold)
		_ = rd.Close()
		_ = syscall.Unlink(fifo)
		return fmt.Errorf("shell: open output pipe: %s was replaced while olly opened it (by a background job of this shell?); run the command again", fifo)
	}
	s.startOutput(r, fifo, ino, rd, hold)
	return nil
}

// betweenOutputOpens, when set (by tests only), is called between the
// opens of a new FIFO's read end and olly's write end: where a job could
// put another FIFO in its place.
var betweenOutputOpens func(fifo string)

// fileFifoIno is fifoIno of an *os.File (through its descriptor, without
// Fd, which would make the file blocking).
func fileFifoIno(f *os.File) uint64 {
	var ino uint64
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { ino = fifoIno(int(fd)) })
	}
	return ino
}

// buffered reports whether bytes wait in the pipe rd reads (or that
// cannot be told): written after its last command's output ended, by a
// process that opened the FIFO again, they are not the next command's.
func buffered(rd *os.File) bool {
	n, err := -1, error(nil)
	c, cerr := rd.SyscallConn()
	if cerr != nil {
		return true
	}
	if cerr = c.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), fionread) }); cerr != nil || err != nil {
		return true
	}
	return n != 0
}

// fifoIno returns the inode of the FIFO fd is open on (0 if it is not a
// FIFO).
func fifoIno(fd int) uint64 {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return 0
	}
	return uint64(st.Ino)
}

// openHold opens olly's write end of fifo, whose read end is open (so
// this does not block; a link put in its place is not followed). olly
// never writes it: a raw descriptor, not an *os.File the poller would
// track.
func openHold(fifo string) (int, error) {
	return syscall.Open(fifo, syscall.O_WRONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

func (s *Shell) startOutput(r *run, fifo string, ino uint64, rd *os.File, hold int) {
	r.fifo, r.fifoIno, r.hold, r.holding = fifo, ino, hold, true
	r.pump = newPump(rd, r.capture)
	s.startPump(r.pump)
}

// closeOutput drops olly's end of r's FIFO: from now on the pipe ends when
// the last process the command started lets go of it.
func (s *Shell) closeOutput(r *run) {
	if r.holding {
		_ = syscall.Close(r.hold)
		r.holding = false
	}
}

// dropOutput ends r's use of its FIFO before the command ran (bash was
// replaced, or could not be given the command).
func (s *Shell) dropOutput(r *run) {
	if r.pump == nil {
		return
	}
	s.closeOutput(r)
	r.pump.stop()
	r.pump = nil
	_ = syscall.Unlink(r.fifo)
}

// recycleOutput ends r's use of its FIFO once the command is over: kept
// for the next command of its bash when the pipe ended and the bash is
// the session's, removed otherwise (a job that still holds it keeps only
// its own copy, and its further output goes to the background log).
func (s *Shell) recycleOutput(r *run) {
	if r.pump == nil || r.fifo == "" {
		return
	}
	rd := r.pump.claim()
	if rd != nil && r.fifoIno != 0 && r.proc == s.proc && !r.proc.dead() && r.broken == nil {
		r.proc.spare, r.proc.spareFifo, r.proc.spareIno = rd, r.fifo, r.fifoIno
		return
	}
	if rd != nil {
		_ = rd.Close()
	}
	_ = syscall.Unlink(r.fifo)
}

// takeSpare returns the FIFO of p's previous command and its read end,
// if it may be used again (recycleOutput); nil if not.
func (p *bashProc) takeSpare() (*os.File, string, uint64) {
	rd, fifo, ino := p.spare, p.spareFifo, p.spareIno
	p.spare, p.spareFifo, p.spareIno = nil, "", 0
	return rd, fifo, ino
}
