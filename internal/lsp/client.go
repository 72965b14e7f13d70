package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Error codes the protocol defines for answers.
const (
	codeContentModified  = -32801
	codeRequestCancelled = -32800
)

// writeTimeout bounds one write to a server's stdin. A server that stops
// reading would otherwise block olly for ever once the pipe is full; a
// timed-out write leaves a half-written message, so the server is killed.
const writeTimeout = 10 * time.Second

// client is one running server process and its JSON-RPC connection.
type client struct {
	name    string // the command, for messages ("gopls")
	lang    string
	opts    *Options
	log     *slog.Logger
	cmd     *exec.Cmd
	stderr  *logWriter
	conn    *jsonrpc2.Conn
	cancel  context.CancelFunc
	folders []WorkspaceFolder

	caps    serverCapabilities
	info    string // the server's name and version, when it says
	started time.Time
	diags   *diagStore

	nextID   atomic.Uint64
	progress atomic.Int64 // $/progress reports begun and not ended
	closing  atomic.Bool  // olly asked it to exit: exiting is no crash
	// lastChange is when olly last sent a document change (Unix ns).
	lastChange atomic.Int64

	mu   sync.Mutex
	regs map[string]registration // dynamic registrations by id
	// answered are the methods the server has answered at least once:
	// a first request may wait while the server builds an index.
	answered map[string]bool

	exited  chan struct{} // closed once the process has exited
	exitErr error         // the exit status, set before exited closes
	reaped  chan struct{} // closed when wait has finished
	// replies are answers to server requests being sent; noReplies
	// (under mu) stops new ones once the client is shutting down.
	replies   sync.WaitGroup
	noReplies bool
}

// startClient starts the server process and runs the initialize handshake
// within ctx.
func startClient(ctx context.Context, opts *Options, srv Server, res Resolved, root string, folders []WorkspaceFolder) (*client, error) {
	c := &client{name: res.Command, lang: srv.Language, opts: opts, folders: folders, diags: newDiagStore(),
		log: opts.Logger.With("server", res.Command), regs: map[string]registration{}, answered: map[string]bool{},
		exited: make(chan struct{}), reaped: make(chan struct{})}
	stream, err := c.spawn(res, root)
	if err != nil {
		return nil, err
	}
	life, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.conn = jsonrpc2.NewConn(life, jsonrpc2.NewBufferedStream(stream, codec{}), &handler{c: c},
		jsonrpc2.SetLogger(slogPrinter{c.log}))
	go c.wait()
	if err := c.initialize(ctx, root); err != nil {
		c.kill()
		<-c.reaped
		c.waitReplies()
		c.cancel()
		return nil, err
	}
	c.log.Info("language server started", "language", srv.Language, "path", res.Path, "info", c.info)
	return c, nil
}

// spawn starts the process with its stdio on pipes olly owns. They are
// made here rather than with StdinPipe/StdoutPipe so that Wait never closes
// the end the reader is using while it reads.
func (c *client) spawn(res Resolved, root string) (*pipeStream, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", res.Command, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start %s: %w", res.Command, err)
	}
	cmd := exec.Command(res.Path, res.Args...)
	cmd.Dir, cmd.Env = root, c.opts.Env
	c.stderr = &logWriter{log: c.log}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	cmd.WaitDelay = c.opts.ShutdownGrace
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", res.Command, err)
	}
	c.cmd, c.started = cmd, time.Now()
	return &pipeStream{r: outR, w: inW, onWriteError: c.kill}, nil
}

// wait reaps the process and closes the connection when it exits, which
// fails every request still waiting.
func (c *client) wait() {
	defer close(c.reaped)
	err := c.cmd.Wait()
	c.exitErr = err
	close(c.exited)
	if !c.closing.Load() {
		c.log.Warn("language server exited unexpectedly", "err", err)
	}
	_ = c.conn.Close()
}

func (c *client) initialize(ctx context.Context, root string) error {
	params := initializeParams{
		ProcessID:        os.Getpid(),
		ClientInfo:       clientInfo{Name: "olly", Version: c.opts.ClientVersion},
		RootURI:          FileURI(root),
		Capabilities:     ollyCapabilities(),
		WorkspaceFolders: c.folders,
	}
	var res initializeResult
	if err := c.callWithin(ctx, "initialize", params, &res, c.opts.StartTimeout); err != nil {
		return err
	}
	if enc := res.Capabilities.PositionEncoding; enc != "" && enc != "utf-16" {
		return fmt.Errorf("%s chose position encoding %q although olly offered only utf-16", c.name, enc)
	}
	c.caps = res.Capabilities
	if res.ServerInfo != nil {
		c.info = strings.TrimSpace(res.ServerInfo.Name + " " + shortVersion(res.ServerInfo.Version))
	}
	return c.notify("initialized", struct{}{})
}

// alive reports whether the process is still running.
func (c *client) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// loading reports whether the server is still loading the workspace: it
// reports work in progress, or started less than Warmup ago and has
// answered nothing yet.
func (c *client) loading() bool {
	if c.progress.Load() > 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.answered) == 0 && time.Since(c.started) < c.opts.Warmup
}

// call sends a request and waits for its answer within RequestTimeout, or
// WarmupTimeout while the server loads and for the first request of each
// method (gopls builds its symbol index on the first workspace/symbol).
func (c *client) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	first := !c.answered[method]
	c.mu.Unlock()
	timeout := c.opts.RequestTimeout
	if first || c.loading() {
		timeout = c.opts.WarmupTimeout
	}
	err := c.callWithin(ctx, method, params, result, timeout)
	var se *ServerError
	if errors.As(err, &se) && se.Code == codeContentModified {
		// The document changed under the request (the server's own
		// re-analysis); asking again gets a fresh answer.
		err = c.callWithin(ctx, method, params, result, timeout)
	}
	if err == nil || errors.As(err, &se) {
		c.mu.Lock()
		c.answered[method] = true
		c.mu.Unlock()
	}
	return err
}

// callWithin sends a request with its own id, so that a request given up
// on (timeout or ctx) can be cancelled with $/cancelRequest.
func (c *client) callWithin(ctx context.Context, method string, params, result any, timeout time.Duration) error {
	if !c.alive() {
		return c.exitError()
	}
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	w, err := c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return c.sendError(method, err)
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = w.Wait(wctx, result)
	switch {
	case err == nil:
		return nil
	case wctx.Err() != nil && errors.Is(err, wctx.Err()):
		_ = c.notify("$/cancelRequest", cancelParams{ID: id.Num})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.log.Warn("request timed out", "method", method, "after", timeout)
		return &TimeoutError{Server: c.name, Method: method, After: timeout}
	case errors.Is(err, jsonrpc2.ErrClosed):
		return c.exitError()
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return &ServerError{Server: c.name, Method: method, Code: rpcErr.Code, Message: rpcErr.Message}
	}
	return fmt.Errorf("%s: decode the answer to %s: %w", c.name, method, err)
}

// notify sends a notification.
func (c *client) notify(method string, params any) error {
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		return c.sendError(method, err)
	}
	return nil
}

func (c *client) sendError(method string, err error) error {
	if errors.Is(err, jsonrpc2.ErrClosed) || !c.alive() {
		return c.exitError()
	}
	return fmt.Errorf("send %s to %s: %w", method, c.name, err)
}

// exitError describes a server that is gone.
func (c *client) exitError() error {
	select {
	case <-c.exited:
		if why := c.stderr.why(); why != "" {
			return fmt.Errorf("%s exited (%v): %s", c.name, c.exitErr, truncateBytes([]byte(why), 300))
		}
		return fmt.Errorf("%s exited (%v)", c.name, c.exitErr)
	case <-time.After(100 * time.Millisecond):
		// The connection closed first; the exit follows at once.
		return fmt.Errorf("%s closed its connection", c.name)
	}
}

// kill ends the process group at once. A reaped process is left alone:
// its id may already belong to another process.
func (c *client) kill() {
	c.closing.Store(true)
	if c.alive() {
		killGroup(c.cmd)
	}
}

// shutdown asks the server to exit (shutdown, then exit), kills it after
// the grace period, and waits for the process.
func (c *client) shutdown() {
	c.closing.Store(true)
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.ShutdownTimeout)
		err := c.callWithin(ctx, "shutdown", nil, nil, c.opts.ShutdownTimeout)
		cancel()
		if err == nil {
			_ = c.notify("exit", nil)
		}
		grace := time.NewTimer(c.opts.ShutdownGrace)
		select {
		case <-c.exited:
		case <-grace.C:
			c.log.Warn("language server did not exit in time; killing it", "grace", c.opts.ShutdownGrace)
			c.kill()
		}
		grace.Stop()
	}
	<-c.reaped
	c.waitReplies()
	c.cancel()
	c.log.Info("language server stopped")
}

// supportsPull reports whether the server answers textDocument/diagnostic
// (declared at initialize or registered later), and with which identifier.
func (c *client) supportsPull() (string, bool) {
	if p := c.caps.DiagnosticProvider; p != nil {
		return p.Identifier, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.regs {
		if r.Method == "textDocument/diagnostic" {
			var opts struct {
				Identifier string `json:"identifier"`
			}
			_ = json.Unmarshal(r.RegisterOptions, &opts)
			return opts.Identifier, true
		}
	}
	return "", false
}

// shortVersion keeps a server's version readable: gopls sends its whole
// build information as JSON, of which only "Version" matters.
func shortVersion(v string) string {
	var build struct {
		Version string `json:"Version"`
	}
	if strings.HasPrefix(v, "{") && json.Unmarshal([]byte(v), &build) == nil && build.Version != "" {
		return build.Version
	}
	if len(v) > 80 {
		return v[:80] + "…"
	}
	return v
}

// addReply counts an answer about to be sent, unless the client is
// shutting down.
func (c *client) addReply() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noReplies {
		return false
	}
	c.replies.Add(1)
	return true
}

// waitReplies stops new answers and waits for those being sent.
func (c *client) waitReplies() {
	c.mu.Lock()
	c.noReplies = true
	c.mu.Unlock()
	c.replies.Wait()
}

// slogPrinter routes jsonrpc2's own log lines to slog (never to stderr,
// which a terminal UI shares).
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(format string, v ...any) {
	p.log.Debug(fmt.Sprintf(format, v...))
}
