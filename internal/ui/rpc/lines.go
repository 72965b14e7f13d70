package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxLine is the longest command line the server reads (64 MiB): a
// prompt with large pasted files fits, and a runaway client cannot make
// olly buffer without bound. A longer line is refused with an error
// response and skipped; the server keeps reading.
const DefaultMaxLine = 64 << 20

// errLineTooLong reports a line over the cap; the reader has skipped it.
type errLineTooLong struct{ max int }

func (e errLineTooLong) Error() string {
	return fmt.Sprintf("line longer than %d bytes: refused and skipped; send large files as @path attachments instead of inline text", e.max)
}

// lineReader reads newline-terminated lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending (a trailing \r is
// dropped too). A line over the cap is skipped to its end and reported as
// errLineTooLong; io.EOF ends the input (a last line without a newline is
// still returned first). The returned slice is valid until the next call.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	over := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !over {
			if len(l.buf)+len(chunk) > l.max+2 { // room for "\r\n"
				over = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if over {
				return nil, errLineTooLong{l.max}
			}
			line := bytes.TrimSuffix(bytes.TrimSuffix(l.buf, []byte("\n")), []byte("\r"))
			if len(line) > l.max {
				return nil, errLineTooLong{l.max}
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if over {
				return nil, errLineTooLong{l.max}
			}
			if len(l.buf) > 0 {
				line := bytes.TrimSuffix(l.buf, []byte("\r"))
				l.buf = l.buf[:0]
				return line, nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// lineWriter writes whole JSON lines, one at a time: every frame goes out
// in a single Write under the lock, so lines never interleave whichever
// goroutine writes them. The first write error is kept and returned by
// every later write: the client is gone.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// write encodes v as one line.
func (w *lineWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode a frame: %w", err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("write to the client: %w", err)
	}
	return w.err
}
