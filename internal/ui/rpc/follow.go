package rpc

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

// follower streams one session's events to the client: olly's events as
// they are, and pi's lifecycle events mapped from them.
type follower struct {
	sub    interface{ Close() }
	cancel context.CancelFunc
	done   chan struct{}
}

// followSession makes id the session commands act on and streams its
// events stored after afterSeq, then its live ones. The previous session's
// stream stops.
func (s *Server) followSession(id string, afterSeq int64) error {
	if err := s.work.Err(); err != nil {
		// The connection ended (work that outlives it ran /new): nobody
		// would close the stream.
		return fmt.Errorf("the connection ended: %w", err)
	}
	sub, err := s.opts.Sessions.Subscribe(s.work, id, afterSeq)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{sub: sub, cancel: cancel, done: make(chan struct{})}
	var pi *piMapper
	if s.opts.Events != rpcproto.FamilyOlly {
		pi = newPiMapper(s.server().Provider, false)
	}
	go func() {
		defer close(f.done)
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				return // closed, or stopped
			}
			s.writeEvent(ev, pi)
		}
	}()
	s.mu.Lock()
	old := s.follow
	s.follow, s.sessionID = f, id
	s.mu.Unlock()
	if old != nil {
		old.close(false)
		s.sessionMoved(id) // not for the first session, which start follows
	}
	return nil
}

// sessionMoved tells Options.OnSession the session commands act on now.
func (s *Server) sessionMoved(id string) {
	if s.opts.OnSession != nil {
		s.opts.OnSession(id)
	}
}

// close stops the stream; with drain, the events already delivered to it
// are written first.
func (f *follower) close(drain bool) {
	if !drain {
		f.cancel()
	}
	f.sub.Close()
	<-f.done
	f.cancel()
}

// writeEvent writes ev in the families the client asked for.
func (s *Server) writeEvent(ev event.Event, pi *piMapper) {
	if s.opts.Events != rpcproto.FamilyPi {
		s.write(ev)
	}
	if pi != nil {
		for _, v := range s.mapPi(pi, ev) {
			s.write(v)
		}
	}
}

// mapPi maps ev, containing a failure of the mapping: the run being mapped
// is dropped (its pi events stop until the next turn) and olly's own
// events go on.
func (s *Server) mapPi(pi *piMapper, ev event.Event) (out []any) {
	defer func() {
		if p := recover(); p != nil {
			s.log().Error("rpc: mapping an event to pi's events failed", "type", ev.Type(), "panic", p, "stack", string(debug.Stack()))
			pi.run, out = nil, nil
		}
	}()
	return pi.Map(ev)
}
