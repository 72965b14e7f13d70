package wire

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// Timeouts. A server that accepts the connection and then stalls — no
// headers, or a chunk and then nothing — would otherwise hold a request
// for ever: the HTTP client has no overall timeout, because a streamed
// answer may rightly take many minutes. So each attempt runs under its
// own context, canceled with a *llm.TimeoutError as cause when the
// headers take longer than Timeouts.Response, or when the body goes
// silent for longer than Timeouts.Idle. The transport then aborts the
// read, and the error is reported as KindTimeout.

// attemptContext derives the context of one attempt. stop must be called
// once the attempt's response, if any, is done with.
func (c *Client) attemptContext(ctx context.Context) (actx context.Context, cancel context.CancelCauseFunc, headers *time.Timer) {
	actx, cancel = context.WithCancelCause(ctx)
	if d := c.Timeouts.Response; d > 0 {
		headers = time.AfterFunc(d, func() {
			cancel(&llm.TimeoutError{Wait: d, Setting: "timeouts.response", Headers: true})
		})
	}
	return actx, cancel, headers
}

// timeoutCause returns the timeout that ended actx, if one did.
func timeoutCause(actx context.Context) *llm.TimeoutError {
	var te *llm.TimeoutError
	if errors.As(context.Cause(actx), &te) {
		return te
	}
	return nil
}

// idleBody is a response body whose reads are watched: silence longer
// than idle cancels the attempt's context with a timeout. Close releases
// the context.
type idleBody struct {
	body   io.ReadCloser
	actx   context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration
	timer  *time.Timer
	once   sync.Once
}

func newIdleBody(body io.ReadCloser, actx context.Context, cancel context.CancelCauseFunc, idle time.Duration) *idleBody {
	b := &idleBody{body: body, actx: actx, cancel: cancel, idle: idle}
	if idle > 0 {
		b.timer = time.AfterFunc(idle, func() {
			cancel(&llm.TimeoutError{Wait: idle, Setting: "timeouts.idle"})
		})
	}
	return b
}

// Read reads and re-arms the idle timer when something arrived. A read
// aborted by the timeout returns the *llm.TimeoutError.
func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 && b.timer != nil {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF {
		if te := timeoutCause(b.actx); te != nil {
			return n, te
		}
	}
	return n, err
}

// Close closes the body and releases the attempt's context.
func (b *idleBody) Close() error {
	var err error
	b.once.Do(func() {
		if b.timer != nil {
			b.timer.Stop()
		}
		err = b.body.Close()
		b.cancel(nil)
	})
	return err
}
