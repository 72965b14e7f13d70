package shell

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// capture receives a command's output while the command runs: it counts it
// against the output cap, streams it to the live callback, and sanitizes it
// into lines for the model's head-and-tail view and for the artifact.
// Memory stays bounded whatever the command prints: the keeper holds at
// most Head+Tail capped lines, the spill at most what fits that view, and
// the Sanitizer one line buffer.
type capture struct {
	max       int64
	raw       int64 // bytes accepted
	discarded int64 // bytes after the cap
	overCh    chan struct{}
	isOver    bool

	live  *live
	san   *Sanitizer
	keep  *keeper
	spill spill
}

func newCapture(max int64, lim Limits, dir, pattern string, l *live) *capture {
	lim = lim.orDefault()
	c := &capture{
		max:    max,
		overCh: make(chan struct{}),
		live:   l,
		keep:   newKeeper(lim),
		// Everything that fits the model's view whole fits in memory; one
		// byte more and the view is truncated, so the file is needed.
		spill: spill{dir: dir, pattern: pattern, limit: (lim.Head + lim.Tail) * (lim.MaxLineBytes + 1)},
	}
	c.san = NewSanitizer(c.text)
	return c
}

var newline = []byte{'\n'}

func (c *capture) text(p []byte) {
	c.keep.write(p)
	c.spill.Write(p)
}

// Write accepts output up to the cap; past it, output is counted and
// dropped, and over() is closed so the command can be stopped.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	if c.raw+int64(n) > c.max {
		keep := max(c.max-c.raw, 0)
		c.discarded += int64(n) - keep
		p = p[:keep]
		if !c.isOver {
			c.isOver = true
			close(c.overCh)
		}
	}
	if len(p) == 0 {
		return n, nil
	}
	c.raw += int64(len(p))
	c.live.write(p)
	_, _ = c.san.Write(p)
	return n, nil
}

// over is closed once the output exceeds the cap.
func (c *capture) over() <-chan struct{} { return c.overCh }

// finish ends the output and returns the model's view, the artifact path
// ("" when the view is complete) and an artifact write error, if any.
func (c *capture) finish() (text, artifact string, err error) {
	c.san.Close()
	c.keep.finish()
	artifact, err = c.spill.finish(c.keep.truncated())
	return c.keep.render(artifact), artifact, err
}

// bgLog receives the output of background processes after the command that
// started them has returned: sanitized into a file, up to the cap, then
// dropped. Reading it keeps the processes from blocking on a full pipe (or
// dying of SIGPIPE) while nobody watches.
type bgLog struct {
	max   int64
	n     int64
	san   *Sanitizer
	spill spill
}

func newBgLog(max int64, dir, pattern string) (*bgLog, error) {
	b := &bgLog{max: max, spill: spill{dir: dir, pattern: pattern}}
	if !b.spill.open() {
		return nil, b.spill.err
	}
	b.san = NewSanitizer(b.spill.Write)
	return b, nil
}

func (b *bgLog) path() string { return b.spill.path }

func (b *bgLog) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.n; int64(len(p)) > room {
		p = p[:max(room, 0)]
	}
	b.n += int64(len(p))
	_, _ = b.san.Write(p)
	return n, nil
}

func (b *bgLog) Close() error {
	b.san.Close()
	_, err := b.spill.finish(true)
	return err
}

// pump copies a command's output pipe to its destination. It is separate
// from the command's lifetime because background processes may hold the
// pipe open long after the command returns: the pump then moves to a bgLog
// and keeps reading until they exit or the shell is closed.
type pump struct {
	r *os.File

	mu       sync.Mutex
	dst      io.Writer
	owned    io.Closer // a detached destination, closed by the pump
	finished bool
	// kept: the pipe ended (end of file, not detached nor stopped), and
	// r is left open for claim, which hands it on (the FIFO is used again
	// for the bash's next command); stopped: stop was called, so r is
	// never kept.
	kept, stopped bool

	eof  chan struct{} // closed when the pipe is done
	read atomic.Int64  // bytes read from the pipe (settle)
}

func newPump(r *os.File, dst io.Writer) *pump {
	return &pump{r: r, dst: dst, eof: make(chan struct{})}
}

// pumpBufs are the pumps' read buffers: one per command in flight,
// reused, so a command does not allocate (and zero) 32 KiB.
var pumpBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (p *pump) run() {
	bp := pumpBufs.Get().(*[]byte)
	defer pumpBufs.Put(bp)
	buf := *bp
	var err error
	for {
		var n int
		n, err = p.r.Read(buf)
		p.read.Add(int64(n))
		if n > 0 {
			p.mu.Lock()
			_, _ = p.dst.Write(buf[:n])
			p.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	p.mu.Lock()
	p.finished = true
	p.kept = errors.Is(err, io.EOF) && p.owned == nil && !p.stopped
	if !p.kept {
		_ = p.r.Close()
	}
	owned := p.owned
	p.mu.Unlock()
	close(p.eof)
	if owned != nil {
		_ = owned.Close()
	}
}

// detach sends further output to w, which the pump then owns. It reports
// false, and leaves w alone, when the pipe is already done.
func (p *pump) detach(w io.WriteCloser) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return false
	}
	p.dst, p.owned = w, w
	return true
}

// settle waits up to grace for the pipe to be done, and then, up to
// bound, until the pump has read the bytes that were unread in it when
// grace ended. The command has ended: those were written before, and
// belong to its result. On a loaded machine the pump may not run within
// grace though all the output is there and every writer is gone; that
// output went to the background log, and the result said something still
// held the output (TestStatePersists/exported_function flaked so: "bash
// -c g" printed nothing). Bytes a job writes later do not make it wait
// longer. Then, if no process holds the pipe's write end any more, the
// pump is at its end as soon as it runs: settle waits for that, up to
// bound. If one does (a job), settle does not wait more: a job that
// keeps writing left bytes unread at every look, and another eofGrace for
// it made each command that started it 100 ms slower
// (TestSettleGivesUpAHeldPipeOnceItsBacklogIsRead).
func (p *pump) settle(grace, bound time.Duration) bool {
	if p.waitEOF(grace) {
		return true
	}
	deadline := time.Now().Add(bound)
	// (Read before the backlog: a read in flight, not yet counted, may
	// make the target fall short of the backlog's end, never past it.)
	target := p.read.Load()
	target += outputUnread(p.r)
	for p.read.Load() < target && time.Now().Before(deadline) {
		if p.waitEOF(backlogPoll) {
			return true
		}
	}
	if pipeHeld(p.r) {
		return p.done() // a job holds the pipe
	}
	return p.waitEOF(time.Until(deadline))
}

// backlogPoll is how often settle looks whether the pump took the output
// left in the pipe.
const backlogPoll = 5 * time.Millisecond

// waitEOF waits up to d for the pipe to be done.
func (p *pump) waitEOF(d time.Duration) bool {
	if p.done() {
		return true
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.eof:
		return true
	case <-t.C:
		return false
	}
}

// done reports whether the pipe is done, without waiting.
func (p *pump) done() bool {
	select {
	case <-p.eof:
		return true
	default:
		return false
	}
}

// stop makes a blocked read return, which ends the pump (and closes the
// pipe, also one it kept).
func (p *pump) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.kept {
		p.kept = false
		_ = p.r.Close()
		return
	}
	if !p.finished {
		_ = p.r.SetReadDeadline(time.Now())
	}
}

// claim returns the pipe's read end if the pump ended at its end of file
// and kept it; the caller then owns it. nil otherwise (the pump closed
// it, or will).
func (p *pump) claim() *os.File {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.kept {
		return nil
	}
	p.kept = false
	return p.r
}
