// Package rpcclient drives `olly --mode rpc` from Go: it starts the
// process, waits for its ready frame, sends commands and matches their
// responses by id, and delivers olly's events on a channel. Editor
// integrations and tests use it; docs/rpc.md describes the protocol for
// clients in other languages. Example (ExampleStart) shows a whole turn
// with an approval.
//
// The request and result types are the protocol's own (type aliases of
// package rpcproto, which the server writes too), so client and server
// cannot disagree on a field. The package imports only the standard
// library, rpcproto and event: embedding olly pulls in none of its
// internals (a test checks this).
package rpcclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/rpcproto"
)

// Defaults of Options.
const (
	DefaultStartTimeout   = 30 * time.Second
	DefaultRequestTimeout = 30 * time.Second
	// closeTimeout is how long Close waits for olly to finish its work
	// after the end of its input before killing it.
	closeTimeout = 10 * time.Second
	// stderrKeep is how much of olly's stderr is kept for error messages.
	stderrKeep = 64 << 10
	// maxFrame bounds one frame read from olly (a large event).
	maxFrame = 256 << 20
)

// Options start an olly process.
type Options struct {
	// Binary is the olly executable; "" finds "olly" on PATH.
	Binary string
	// Args come before --mode rpc: --cwd, --base-url, --model, --set, …
	Args []string
	// Env is the process's environment; nil inherits this one.
	Env []string
	// Dir is the working directory ("": this one).
	Dir string
	// Events selects the event families (olly, pi, both; "" is olly).
	// Olly events arrive on Events, pi events on PiEvents.
	Events string
	// StartTimeout bounds the wait for the ready frame;
	// RequestTimeout each command without a deadline of its own (not
	// bash and compact, which take as long as they take).
	StartTimeout   time.Duration
	RequestTimeout time.Duration
	// Stderr, when set, also receives olly's stderr.
	Stderr io.Writer
}

// Client is a running `olly --mode rpc`. Its methods are safe for
// concurrent use.
type Client struct {
	opts  Options
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ready rpcproto.Ready

	wmu sync.Mutex // one frame at a time on stdin

	mu      sync.Mutex
	nextID  int
	pending map[string]chan rpcproto.Response

	events *queue[event.Event]
	pi     *queue[json.RawMessage]
	late   *queue[rpcproto.Response]

	stderr  *tail
	exited  chan struct{} // closed when the process ended
	waitErr error
	readErr error
	readers sync.WaitGroup
	closed  sync.Once
}

// Start starts olly in RPC mode and waits for its ready frame. An olly
// that exits first is an error that includes what it wrote to stderr.
func Start(ctx context.Context, opts Options) (*Client, error) {
	if opts.Binary == "" {
		opts.Binary = "olly"
	}
	if opts.Events == "" {
		opts.Events = rpcproto.FamilyOlly
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	args := append(append([]string(nil), opts.Args...), "--mode", "rpc", "--rpc-events", opts.Events)
	cmd := exec.Command(opts.Binary, args...)
	cmd.Env, cmd.Dir = opts.Env, opts.Dir
	c := &Client{opts: opts, cmd: cmd, pending: map[string]chan rpcproto.Response{},
		events: newQueue[event.Event](), pi: newQueue[json.RawMessage](), late: newQueue[rpcproto.Response](),
		stderr: &tail{max: stderrKeep}, exited: make(chan struct{})}
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, c.abandon(fmt.Errorf("start olly: %w", err))
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, c.abandon(fmt.Errorf("start olly: %w", err))
	}
	cmd.Stderr = c.stderr
	if opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.stderr, opts.Stderr)
	}
	if err := cmd.Start(); err != nil {
		return nil, c.abandon(fmt.Errorf("start %s: %w", opts.Binary, err))
	}
	readyCh := make(chan rpcproto.Ready, 1)
	c.readers.Add(1)
	go c.read(stdout, readyCh)
	go func() {
		c.readers.Wait() // stdout is drained before Wait closes it
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	timer := time.NewTimer(opts.StartTimeout)
	defer timer.Stop()
	select {
	case c.ready = <-readyCh:
		return c, nil
	case <-c.exited:
		err = fmt.Errorf("olly exited before it was ready (%v)%s", c.waitErr, c.stderrNote())
	case <-timer.C:
		err = fmt.Errorf("olly was not ready within %s%s", opts.StartTimeout, c.stderrNote())
	case <-ctx.Done():
		err = ctx.Err()
	}
	_ = c.Close()
	return nil, err
}

// abandon releases what Start made before the process ran.
func (c *Client) abandon(err error) error {
	c.events.discard()
	c.pi.discard()
	c.late.discard()
	return err
}

// Ready returns the ready frame: the session, its model and workspace,
// and the commands this olly answers.
func (c *Client) Ready() rpcproto.Ready { return c.ready }

// Events delivers olly's events as they arrive, decoded. The channel is
// closed when olly's output ends; events not read before Close are
// dropped.
func (c *Client) Events() <-chan event.Event { return c.events.out }

// PiEvents delivers the pi lifecycle events (with Options.Events pi or
// both), as sent.
func (c *Client) PiEvents() <-chan json.RawMessage { return c.pi.out }

// Late delivers responses nobody waits for: the second response of a
// prompt that was accepted and then refused by the agent.
func (c *Client) Late() <-chan rpcproto.Response { return c.late.out }

// Done is closed when the olly process has ended.
func (c *Client) Done() <-chan struct{} { return c.exited }

// Stderr returns the end of what olly wrote to stderr.
func (c *Client) Stderr() string { return c.stderr.String() }

func (c *Client) stderrNote() string {
	s := strings.TrimSpace(c.stderr.String())
	if s == "" {
		return ""
	}
	return ": " + s
}

// Error is a command olly answered with success false.
type Error struct {
	Command string
	Message string
}

func (e *Error) Error() string { return e.Command + ": " + e.Message }

// Call sends a command with req's fields and decodes the result into
// resp (nil: ignored). It waits for the response until ctx ends — or,
// when ctx has no deadline, for RequestTimeout.
func (c *Client) Call(ctx context.Context, command string, req, resp any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.RequestTimeout)
		defer cancel()
	}
	return c.call(ctx, command, req, resp)
}

// call is Call without the default timeout (Compact and Bash take as long
// as they take; ctx bounds them).
func (c *Client) call(ctx context.Context, command string, req, resp any) error {
	frame, err := commandFrame(command, req)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.nextID++
	id := "req_" + strconv.Itoa(c.nextID)
	ch := make(chan rpcproto.Response, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	frame["id"] = json.RawMessage(strconv.Quote(id))
	if err := c.send(frame); err != nil {
		c.forget(id)
		return err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: olly stopped before answering%s", command, c.stderrNote())
		}
		if !r.Success {
			return &Error{Command: command, Message: r.Error}
		}
		if resp != nil && len(r.Data) > 0 {
			if err := json.Unmarshal(r.Data, resp); err != nil {
				return fmt.Errorf("%s: decode the result: %w", command, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: no response: %w", command, ctx.Err())
	}
}

func (c *Client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// commandFrame is req's fields with the command's type.
func commandFrame(command string, req any) (map[string]json.RawMessage, error) {
	frame := map[string]json.RawMessage{}
	if req != nil {
		b, err := json.Marshal(req)
		if err != nil {
			return nil, fmt.Errorf("%s: encode the request: %w", command, err)
		}
		if err := json.Unmarshal(b, &frame); err != nil {
			return nil, fmt.Errorf("%s: the request must be an object: %w", command, err)
		}
	}
	frame["type"] = json.RawMessage(strconv.Quote(command))
	return frame, nil
}

// Send writes a raw line to olly, for what the typed calls do not cover
// (and for testing olly's handling of bad input).
func (c *Client) Send(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.stdin.Write(append(bytes.TrimRight(line, "\n"), '\n')); err != nil {
		return fmt.Errorf("write to olly: %w%s", err, c.stderrNote())
	}
	return nil
}

func (c *Client) send(frame map[string]json.RawMessage) error {
	b, err := json.Marshal(frame)
	if err != nil {
		return err
	}
	return c.Send(b)
}

// Close ends olly's input, which makes it cancel what is running, record
// it and exit; after closeTimeout it is killed. It returns how the process
// ended (nil for exit status 0).
func (c *Client) Close() error {
	var err error
	c.closed.Do(func() {
		_ = c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(closeTimeout):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		c.events.discard()
		c.pi.discard()
		c.late.discard()
		err = c.waitErr
		if err == nil {
			c.mu.Lock()
			err = c.readErr
			c.mu.Unlock()
		}
	})
	return err
}

// Signal sends sig to olly (SIGTERM stops it like the end of input).
func (c *Client) Signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

// tail keeps the last max bytes written.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func cut(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
