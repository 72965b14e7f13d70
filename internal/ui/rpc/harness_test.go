package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// backend is a store, a session service with a scripted runner, and the
// approval manager: everything a server needs, in a temp directory.
type backend struct {
	st        *store.Store
	svc       *session.Service
	approvals *approval.Manager
	sess      *store.Session
}

func newBackend(t testing.TB, r session.Runner) *backend {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	svc, err := session.New(session.Deps{Store: st, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	sess, err := svc.Create(ctx, session.CreateOptions{Workspace: t.TempDir(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return &backend{st: st, svc: svc, approvals: approval.NewManager(approval.Options{}), sess: sess}
}

// quickRunner answers every prompt with a short finished turn.
type quickRunner struct{}

func (quickRunner) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	if strings.Contains(t.Input.Text, "@refuse") {
		return nil, context.DeadlineExceeded // refused before starting: nothing emitted
	}
	for _, p := range []event.Payload{
		event.TurnStarted{Mode: "agent", Model: "m"},
		event.UserMessage{Text: t.Input.Text},
		event.TextDelta{Iteration: 1, Text: "Done"},
		event.AssistantMessage{Iteration: 1, Content: "Done", Model: "m"},
		event.FinalMessage{Text: "Done"},
		event.TurnFinished{Status: event.FinishDone, Iterations: 1},
	} {
		if _, err := t.Emit(ctx, p); err != nil {
			return nil, err
		}
	}
	return &session.TurnResult{Turn: t.Number, Status: event.FinishDone, FinalText: "Done"}, nil
}

// approvalRunner asks for a command approval and waits for the answer.
type approvalRunner struct{ approvals *approval.Manager }

func (r *approvalRunner) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	emit := func(ctx context.Context, p event.Payload) error { _, err := t.Emit(ctx, p); return err }
	if err := emit(ctx, event.TurnStarted{Mode: "agent"}); err != nil {
		return nil, err
	}
	if err := emit(ctx, event.UserMessage{Text: t.Input.Text}); err != nil {
		return nil, err
	}
	d, err := r.approvals.Request(ctx, emit, approval.Request{Session: t.SessionID, Kind: event.ApprovalCommand,
		Command: "touch x", Severity: safety.Medium, Reason: "test"})
	if err != nil {
		return nil, err
	}
	status := event.FinishDone
	if d.Outcome == event.DecisionCanceled || ctx.Err() != nil {
		status = event.FinishCanceled
	}
	if err := emit(context.WithoutCancel(ctx), event.TurnFinished{Status: status}); err != nil {
		return nil, err
	}
	return &session.TurnResult{Turn: t.Number, Status: status}, nil
}

// conn is a running server on pipes.
type conn struct {
	t      testing.TB
	in     *io.PipeWriter
	lines  chan []byte
	done   chan error
	cancel context.CancelFunc
	// skipped are frames read while waiting for others.
	skipped []frame
}

func serve(t testing.TB, b *backend, edit func(*Options)) *conn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts := Options{In: inR, Out: outW, Sessions: b.svc, Approvals: b.approvals, Store: b.st, SessionID: b.sess.ID,
		Version: "test", Events: rpcproto.FamilyOlly, MaxLine: 4096}
	if edit != nil {
		edit(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{t: t, in: inW, lines: make(chan []byte, 1024), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := Serve(ctx, opts)
		_ = outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
		_, _ = io.Copy(io.Discard, outR)
	}()
	t.Cleanup(func() { c.close() })
	return c
}

// send writes one line.
func (c *conn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("send %q: %v", line, err)
	}
}

// frame is any line the server wrote, decoded loosely.
type frame struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error"`
	Data    json.RawMessage `json:"data"`
	raw     []byte
}

// next returns the first frame satisfying ok, failing after a timeout:
// frames an earlier next skipped first, then new ones. Every line must be
// one JSON object.
func (c *conn) next(what string, ok func(frame) bool) frame {
	c.t.Helper()
	for i, f := range c.skipped {
		if ok(f) {
			c.skipped = append(c.skipped[:i:i], c.skipped[i+1:]...)
			return f
		}
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, open := <-c.lines:
			if !open {
				c.t.Fatalf("the server's output ended while waiting for %s", what)
			}
			var f frame
			if err := json.Unmarshal(l, &f); err != nil {
				c.t.Fatalf("not a JSON line: %v\n%s", err, l)
			}
			f.raw = l
			if ok(f) {
				return f
			}
			c.skipped = append(c.skipped, f)
		case <-timeout:
			c.t.Fatalf("no %s within 10s", what)
		}
	}
}

// response waits for the response with id.
func (c *conn) response(id string) frame {
	c.t.Helper()
	return c.next("response "+id, func(f frame) bool { return f.Type == rpcproto.TypeResponse && string(f.ID) == id })
}

// call sends a command and waits for its response.
func (c *conn) call(id, line string) frame {
	c.t.Helper()
	c.send(line)
	return c.response(id)
}

// close ends the input and waits for the server.
func (c *conn) close() {
	_ = c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			c.t.Errorf("Serve: %v", err)
		}
		c.done <- err
	case <-time.After(10 * time.Second):
		c.t.Error("the server did not stop after its input ended")
	}
	c.cancel()
	for range c.lines {
	}
}
