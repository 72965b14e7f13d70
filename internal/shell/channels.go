package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// channels are the descriptors olly opens for a bash it starts (see
// driver.bash): the wake pipe, the frame pipe, the request file (olly's
// end to write, bash's to read) and /dev/null.
type channels struct {
	wakeR, wakeW *os.File
	frR, frW     *os.File
	reqR         *os.File
	reqW         int // a raw descriptor: never registered with the poller
	null         *os.File
}

// openChannels opens a new bash's channels, its request file made in
// own, the bash's fresh folder, which nothing else has written yet.
func openChannels(own string) (c channels, err error) {
	defer func() {
		if err != nil {
			c.closeBashEnds()
			c.closeOllyEnds()
		}
	}()
	if c.wakeR, c.wakeW, err = os.Pipe(); err != nil {
		return c, fmt.Errorf("shell: create pipe: %w", err)
	}
	if c.frR, c.frW, err = os.Pipe(); err != nil {
		return c, fmt.Errorf("shell: create pipe: %w", err)
	}
	path := filepath.Join(own, "req")
	if c.reqW, err = syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600); err != nil {
		c.reqW = 0
		return c, fmt.Errorf("shell: create request file: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	if c.reqR, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0); err != nil {
		return c, fmt.Errorf("shell: open request file: %w", err)
	}
	if c.null, err = os.Open(os.DevNull); err != nil {
		return c, fmt.Errorf("shell: open %s: %w", os.DevNull, err)
	}
	return c, nil
}

// closeBashEnds closes olly's copies of the descriptors bash was given
// (once it has them, or could not be started).
func (c *channels) closeBashEnds() {
	for _, f := range []*os.File{c.wakeR, c.frW, c.reqR, c.null} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// closeOllyEnds closes the descriptors olly keeps for itself (when the
// channels could not be opened, or bash could not be started).
func (c *channels) closeOllyEnds() {
	for _, f := range []*os.File{c.wakeW, c.frR} {
		if f != nil {
			_ = f.Close()
		}
	}
	if c.reqW > 0 {
		_ = syscall.Close(c.reqW)
	}
}

// writeRequest writes request b into p's request file, from its start
// (one pwrite, and an ftruncate when the one before was longer), through
// olly's own descriptor: a link or file a command puts at the path is
// never written. bash reads it through a fresh open of the descriptor it
// was started with (/proc/self/fd/11), so it reads this file whatever is
// at the path, from its start; a job that inherited that descriptor and
// reads it does not move bash's read position (TestJobReadingTheRequest
// DescriptorIsReplaced). Only where /proc is missing does bash open the
// path. A job of the same bash can still rewrite a request by winning a
// race of microseconds (docs/shell.md).
func (p *bashProc) writeRequest(b []byte) error {
	for off := 0; off < len(b); {
		w, err := syscall.Pwrite(p.req, b[off:], int64(off))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: filepath.Join(p.dir, "req"), Err: err}
		}
		off += w
	}
	if int64(len(b)) < p.reqEnd {
		if err := syscall.Ftruncate(p.req, int64(len(b))); err != nil {
			return &os.PathError{Op: "write", Path: filepath.Join(p.dir, "req"), Err: err}
		}
	}
	p.reqEnd = int64(len(b))
	return nil
}

// closeRequest closes olly's descriptor of p's request file.
func (p *bashProc) closeRequest() {
	if p.req > 0 {
		_ = syscall.Close(p.req)
		p.req = 0
	}
}
