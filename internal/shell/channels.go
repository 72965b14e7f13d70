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
			for _, f := range []*os.File{c.wakeW, c.frR} {
				if f != nil {
					_ = f.Close()
				}
			}
			if c.reqW > 0 {
				_ = syscall.Close(c.reqW)
			}
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

// writeRequest appends request b to p's request file, where bash reads
// it from: bash reads from where the previous request ended to the end
// of the file, through the descriptor it was started with, so one write
// hands it over (bash never opens the file's path, and olly writes only
// through its own descriptor: nothing a command puts at the path, a link
// or a FIFO, is read or written). The part bash has read is given back
// to the file system from time to time (dropRead); the file's size only
// grows. A job of the same bash that writes into the file (it may: the
// folder is the bash's) can spoil the next request, which then fails the
// frame checks and costs a new bash, as any meddling with the channel
// does (docs/shell.md).
func (p *bashProc) writeRequest(b []byte) error {
	for off := 0; off < len(b); {
		w, err := syscall.Pwrite(p.req, b[off:], p.reqEnd+int64(off))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: filepath.Join(p.dir, "req"), Err: err}
		}
		off += w
	}
	before := p.reqEnd
	p.reqEnd += int64(len(b))
	if before/dropEvery != p.reqEnd/dropEvery {
		dropRead(p.req, before)
	}
	return nil
}

// dropEvery is how many bytes of requests pass between two dropRead
// calls: one system call per some 1,700 commands.
const dropEvery = 256 << 10

// closeRequest closes olly's descriptor of p's request file.
func (p *bashProc) closeRequest() {
	if p.req > 0 {
		_ = syscall.Close(p.req)
		p.req = 0
	}
}
