// Package wire holds the HTTP plumbing both model-server clients share: base
// URL normalisation, requests with retries, error classification, and a line
// reader for streamed responses. It is internal to internal/llm so that the
// rest of olly sees only the provider-neutral types.
package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxLine bounds one stream line. It is far above anything a model
// server sends (a tool call carrying a whole file is tens of MB) and exists
// only so that a runaway server cannot exhaust memory.
const DefaultMaxLine = 1 << 30

// ErrLineTooLong is returned by LineReader.Next for a line above its limit.
var ErrLineTooLong = errors.New("stream line exceeds the size limit")

// LineReader reads newline-terminated lines of any length. Short lines are
// returned straight from the read buffer without copying; a line longer
// than the buffer is assembled in a scratch slice that is reused, so memory
// stays proportional to the longest line, not to the stream.
//
// bufio.Scanner is not used on purpose: its default 64 KiB token limit fails
// on the first tool call that carries a file.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	max  int
	line int
}

// readBufSize is the read buffer of a LineReader: large reads of long
// lines go to the connection directly.
const readBufSize = 64 << 10

// readers holds the read buffers of released LineReaders: an agent step
// reads one response, and a new 64 KiB buffer per response was a tenth of
// what a step allocated.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufSize) }}

// errReleased is what Next returns after Release.
var errReleased = errors.New("line reader released")

// NewLineReader reads lines from r. max bounds one line; zero or less means
// DefaultMaxLine. Release gives its read buffer back.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return &LineReader{r: br, max: max}
}

// Release gives the read buffer back for another LineReader. Lines
// returned before are invalid from then on; Next fails. Call it once the
// stream is over, from the goroutine that reads.
func (l *LineReader) Release() {
	if l.r == nil {
		return
	}
	l.r.Reset(nil)
	readers.Put(l.r)
	l.r, l.buf = nil, nil
}

// discard reads and drops the rest of the input, at most max bytes, and
// reports whether that reached its end.
func (l *LineReader) discard(max int64) bool {
	if l.r == nil {
		return false
	}
	_, err := io.CopyN(io.Discard, l.r, max)
	return errors.Is(err, io.EOF)
}

// Line is the number of the line last returned by Next, counting from 1.
func (l *LineReader) Line() int { return l.line }

// Next returns the next line without its "\n" or "\r\n" terminator. The
// slice is only valid until the next call. A final line without terminator
// is returned before io.EOF. Read errors other than io.EOF are returned as
// they are; a partial line read before such an error is not returned, since
// the caller cannot tell whether it is complete.
func (l *LineReader) Next() ([]byte, error) {
	if l.r == nil {
		return nil, errReleased
	}
	frag, err := l.r.ReadSlice('\n')
	switch {
	case err == nil:
		return l.found(frag)
	case errors.Is(err, bufio.ErrBufferFull):
		return l.long(frag)
	case errors.Is(err, io.EOF) && len(frag) > 0:
		return l.found(frag)
	default:
		return nil, err
	}
}

// long assembles a line that did not fit the read buffer.
func (l *LineReader) long(first []byte) ([]byte, error) {
	l.buf = append(l.buf[:0], first...)
	for {
		frag, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(frag) > l.max {
			return nil, fmt.Errorf("%w (%d bytes)", ErrLineTooLong, l.max)
		}
		l.buf = append(grow(l.buf, len(frag)), frag...)
		switch {
		case err == nil, errors.Is(err, io.EOF):
			return l.found(l.buf)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

func (l *LineReader) found(b []byte) ([]byte, error) {
	if len(b) > l.max {
		return nil, fmt.Errorf("%w (%d bytes)", ErrLineTooLong, l.max)
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// grow makes room for n more bytes, doubling the capacity: append's own
// growth slows to 1.25x for large slices, which for a 50 MB line means
// copying it several times over.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(2*cap(b), len(b)+n, 64<<10))
	copy(nb, b)
	return nb
}
