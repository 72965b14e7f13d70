package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/ui/rpc"
	"github.com/olly-agent/olly/rpcproto"
)

// Limits of a connection.
const (
	// maxMessage caps a message from the page (a prompt with a long
	// paste fits; the protocol's own cap is larger, for programs).
	maxMessage = 8 << 20
	// writeTimeout drops a page that stopped reading.
	writeTimeout = 15 * time.Second
	// flushEvery bounds how long events wait while a burst is read: the
	// page gets at least this often what changed.
	flushEvery = 30 * time.Millisecond
	// flushBatch is how many events are read before a flush at most.
	flushBatch = 512
)

// conn is one page's WebSocket: a protocol server reading the page's
// commands, and the timeline of the session that server works on.
type conn struct {
	s  *Server
	ws *websocket.Conn

	// mu orders moved's callers.
	mu sync.Mutex
	// switched carries the session the protocol server moved to (or the
	// same one, after a branch): the timeline starts over.
	switched chan string
	// resume is where the page left off, for the first timeline only.
	resume resumePoint
}

// serveWS runs one connection until the page goes away or the server
// stops.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	s.conns.Add(1)
	defer s.conns.Done()
	// The guard checked Origin already; websocket.Accept checks it again
	// (its default: the Origin's host must be the request's).
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.opts.Log.Warn("web: websocket", "error", err)
		return
	}
	defer ws.CloseNow()
	s.track(ws, true)
	defer s.track(ws, false)
	ws.SetReadLimit(maxMessage)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sess, warnings, err := s.session(ctx, r.URL.Query().Get("session"))
	if err != nil {
		_ = ws.Close(websocket.StatusPolicyViolation, truncate(err.Error(), 120))
		return
	}
	c := &conn{s: s, ws: ws, switched: make(chan string, 1)}
	if sess.ID == r.URL.Query().Get("session") {
		c.resume = resumeFrom(r.URL.Query())
	}
	c.run(ctx, sess.ID, warnings)
	_ = ws.Close(websocket.StatusNormalClosure, "")
}

// run serves the connection: the protocol server on one side, the
// timeline on the other, both writing to the page.
func (c *conn) run(ctx context.Context, sessionID string, warnings []string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inR, inW := io.Pipe()
	opts := c.s.opts.RPC
	opts.In, opts.Out, opts.SessionID = inR, &frameWriter{c: c, ctx: ctx}, sessionID
	opts.Events, opts.Work, opts.Log = rpcproto.FamilyOlly, c.s.work, c.s.opts.Log
	opts.OnSession = c.moved // new_session, switch_session, fork, /new, branch
	opts.Warnings = append(append([]string(nil), opts.Warnings...), warnings...)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer cancel() // the protocol server ended: so does the page's connection
		if err := rpc.Serve(ctx, opts); err != nil {
			c.s.opts.Log.Warn("web: protocol server", "error", err)
		}
	}()
	go func() {
		defer wg.Done()
		c.timeline(ctx, sessionID)
	}()
	c.read(ctx, inW)
	cancel()
	_ = inW.Close()
	wg.Wait()
}

// read hands the page's messages to the protocol server, one line each.
func (c *conn) read(ctx context.Context, in *io.PipeWriter) {
	for {
		_, b, err := c.ws.Read(ctx)
		if err != nil {
			return
		}
		b = append(bytes.TrimRight(b, "\r\n"), '\n')
		if _, err := in.Write(b); err != nil {
			return
		}
	}
}

// send writes one frame to the page.
func (c *conn) send(ctx context.Context, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// frameWriter forwards the protocol server's frames to the page.
type frameWriter struct {
	c   *conn
	ctx context.Context
}

func (w *frameWriter) Write(b []byte) (int, error) {
	if err := w.c.send(w.ctx, bytes.TrimRight(b, "\n")); err != nil {
		return 0, err
	}
	return len(b), nil
}

// moved restarts the timeline on the session the protocol server works on
// now (rpc.Options.OnSession): another one, or the same after a branch.
func (c *conn) moved(to string) {
	// Under mu, so that of two callers (a command and a prompt that ran
	// /new) neither can find the channel full after draining it.
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.switched: // an older switch not taken yet: this one wins
	default:
	}
	c.switched <- to
}

// timeline streams the timeline of the connection's session, starting
// over on each switch.
func (c *conn) timeline(ctx context.Context, id string) {
	for {
		fctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := c.follow(fctx, id); err != nil && fctx.Err() == nil {
				c.s.opts.Log.Warn("web: timeline", "session", id, "error", err)
			}
		}()
		select {
		case <-ctx.Done():
			cancel()
			<-done
			return
		case id = <-c.switched:
			cancel()
			<-done
		}
	}
}

// follow sends the session's timeline: built from the stored branch in
// one frame, then updated from live events, a frame per burst.
func (c *conn) follow(ctx context.Context, id string) error {
	svc := c.s.opts.RPC.Sessions
	last, err := svc.LastSeq(ctx, id)
	if err != nil {
		return err
	}
	stored, err := svc.History(ctx, id)
	if err != nil {
		return err
	}
	sub, err := svc.Subscribe(ctx, id, last)
	if err != nil {
		return err
	}
	defer sub.Close()
	v := newView(c.s.render, id)
	if err := c.first(ctx, v, stored); err != nil {
		return err
	}
	events := make(chan event.Event, flushBatch)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(events)
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				return
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	for {
		ev, ok := <-events
		if !ok {
			return nil
		}
		start := time.Now()
		v.apply(ev, start)
		// Take what else is already here (a burst of deltas), for a
		// while, then show it all at once.
	burst:
		for n := 1; n < flushBatch && time.Since(start) < flushEvery; n++ {
			select {
			case ev, ok := <-events:
				if !ok {
					break burst
				}
				v.apply(ev, start)
			default:
				break burst
			}
		}
		if err := c.flush(ctx, v); err != nil {
			return err
		}
	}
}

// first sends the timeline built from the stored events: only what changed
// when the page resumes from a point of it, the whole of it otherwise.
func (c *conn) first(ctx context.Context, v *view, stored []event.Event) error {
	p := c.resume
	c.resume = resumePoint{} // a switch or branch starts over
	atSince := -1
	for _, ev := range stored {
		v.apply(ev, time.Time{})
		if p.since > 0 && ev.Seq == p.since {
			// What the page has; what follows is what changed.
			atSince = len(v.b.Timeline().Items)
			clear(v.dirty)
			v.all, v.at = false, time.Time{}
		}
	}
	f, ok, err := v.resume(p, atSince)
	if err != nil {
		return err
	}
	if ok {
		return c.sendFrame(ctx, f)
	}
	return v.reset(func(f *TimelineFrame) error { return c.sendFrame(ctx, f) })
}

func (c *conn) flush(ctx context.Context, v *view) error {
	f, err := v.flush(false)
	if err != nil || f == nil {
		return err
	}
	return c.sendFrame(ctx, f)
}

func (c *conn) sendFrame(ctx context.Context, f *TimelineFrame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := c.send(ctx, b); err != nil {
		return errors.Join(errors.New("send the timeline"), err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
