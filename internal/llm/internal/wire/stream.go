package wire

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// errClosed is the cause reported by Recv after Close.
var errClosed = errors.New("stream closed by the caller")

// ErrEndedEarly is the cause when a stream ends before its final chunk
// (llm.ErrEndedEarly).
var ErrEndedEarly = llm.ErrEndedEarly

// Body is the open body of a streamed response: the shared part of both
// dialects' streams. It remembers the first final error, closes the
// connection once, and turns read failures into *llm.Error values. Reading
// a body blocks in the HTTP transport, which the request's context aborts,
// so cancelling ends Recv promptly without any goroutine of ours.
type Body struct {
	ctx    context.Context
	w      *Client
	call   *Call
	body   io.ReadCloser
	Lines  *LineReader
	err    error
	once   sync.Once
	closed atomic.Bool
}

// NewBody wraps a response body read by lines.
func NewBody(ctx context.Context, w *Client, call *Call, body io.ReadCloser) *Body {
	return &Body{ctx: ctx, w: w, call: call, body: body, Lines: NewLineReader(body, 0)}
}

// Client returns the client the stream belongs to, for building errors.
func (b *Body) Client() *Client { return b.w }

// Call returns the request the stream answers.
func (b *Body) Call() *Call { return b.call }

// Err is the stream's final error, or nil while it is open.
func (b *Body) Err() error {
	if b.err == nil && b.closed.Load() {
		b.err = b.w.Err(b.call, llm.KindCanceled, 0, "", errClosed)
	}
	return b.err
}

// Finish records the final error (io.EOF after the last chunk), closes
// the body and gives the read buffer back. After the final chunk the rest
// of the response (the end of the chunked encoding) is read first, so
// that the connection serves the next request instead of a new one being
// dialed for each; a server that sends more, or keeps the stream open,
// gets closed after drainWait as before (drain). Call it from the
// goroutine that reads.
func (b *Body) Finish(err error) error {
	if b.err == nil {
		b.err = err
	}
	if b.err == io.EOF {
		b.drain()
	}
	_ = b.Close()
	b.Lines.Release()
	return b.err
}

// What drain reads at most, and waits for at most: the end of a chunked
// response is 5 bytes, sent right after the final chunk.
const (
	drainMax  = 64 << 10
	drainWait = 20 * time.Millisecond
)

// drain reads what follows the final chunk, up to drainMax and drainWait.
// A client whose server once made it wait the full drainWait stops
// draining (its connections are then closed, not reused): no response
// waits twice.
func (b *Body) drain() {
	if b.closed.Load() || b.w.noDrain == nil || b.w.noDrain.Load() {
		return
	}
	t := time.AfterFunc(drainWait, func() {
		b.w.noDrain.Store(true)
		_ = b.Close()
	})
	b.Lines.discard(drainMax)
	t.Stop()
}

// Close releases the connection. It is safe to call more than once and
// from another goroutine while Recv is blocked, which then returns.
func (b *Body) Close() error {
	b.once.Do(func() {
		b.closed.Store(true)
		_ = b.body.Close()
	})
	return nil
}

// ReadFailure classifies an error from Lines.Next: end of input before the
// final chunk, a line over the limit, the caller's context ending, Close,
// a body gone silent, or a dropped connection.
func (b *Body) ReadFailure(err error) *llm.Error {
	switch {
	case b.ctx.Err() != nil:
		return b.w.Canceled(b.ctx, b.call)
	case b.closed.Load():
		return b.w.Err(b.call, llm.KindCanceled, 0, "", errClosed)
	case errors.Is(err, io.EOF):
		// The server was reached and answered 200: a server error, not
		// a connection one ("cannot reach" would send the person to
		// check a server that is running).
		return b.w.Err(b.call, llm.KindServer, 0, "", endedEarly{lines: b.Lines.Line()})
	case errors.Is(err, ErrLineTooLong):
		return b.w.Err(b.call, llm.KindMalformedStream, 0, "", err)
	default:
		return b.w.ReadErr(b.ctx, b.call, err)
	}
}

// Malformed is the error for a line that is not what the dialect sends. It
// quotes the line and gives its number, so that the problem can be found
// in a capture of the stream.
func (b *Body) Malformed(line []byte, cause error) *llm.Error {
	return b.MalformedAt(line, b.Lines.Line(), cause)
}

// MalformedAt is Malformed for a line other than the last one read (an
// event's data line, read before the blank line that dispatched it).
func (b *Body) MalformedAt(line []byte, n int, cause error) *llm.Error {
	e := b.w.Err(b.call, llm.KindMalformedStream, 0, "", lineErr{n: n, err: cause})
	e.Line = llm.QuoteLine(line)
	return e
}

// ServerFailure is the error for an error object the server sent inside
// the stream.
func (b *Body) ServerFailure(se ServerError) *llm.Error {
	if se.Message == "" {
		se.Message = "the server reported an error without a message"
	}
	return b.w.Err(b.call, StreamKind(se), 0, se.Message, nil)
}

// lineErr says which line of the stream was bad.
type lineErr struct {
	n   int
	err error
}

func (e lineErr) Error() string { return "line " + strconv.Itoa(e.n) + ": " + e.err.Error() }
func (e lineErr) Unwrap() error { return e.err }

// endedEarly says how much of a stream arrived before it ended early.
type endedEarly struct{ lines int }

func (e endedEarly) Error() string {
	if e.lines == 0 {
		return ErrEndedEarly.Error() + ": the response body was empty"
	}
	lines := strconv.Itoa(e.lines) + " lines"
	if e.lines == 1 {
		lines = "1 line"
	}
	return ErrEndedEarly.Error() + " (after " + lines + ", none of them final; Ollama ends a response like this when it stops a model that keeps repeating itself)"
}
func (e endedEarly) Unwrap() error { return ErrEndedEarly }
