package session

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// Subscription delivers a session's events: first the stored ones after
// the requested Seq, then live ones, with no gap and no duplicate. It is
// meant for one reader goroutine; Close may be called from any.
type Subscription struct {
	backlog []event.Event
	live    *event.Subscription
	lastSeq int64
}

// Subscribe returns the session's stored events with Seq > afterSeq
// followed by every event published from now on (ephemeral ones included).
// Every branch of the session's tree is included: it is the log. The caller
// must Close the subscription.
func (s *Service) Subscribe(ctx context.Context, id string, afterSeq int64) (*Subscription, error) {
	if _, err := s.Open(ctx, id); err != nil {
		return nil, err
	}
	// Under the session's emit lock no event can be stored between reading
	// the log and starting the live feed, so nothing falls between them.
	lk := s.lockFor(id)
	lk.Lock()
	live := s.bus.Subscribe(func(ev event.Event) bool { return ev.Session == id })
	recs, err := s.store.Events(ctx, id, afterSeq, 0)
	lk.Unlock()
	if err != nil {
		live.Close()
		return nil, fmt.Errorf("subscribe to session %s: %w", id, err)
	}
	backlog, err := decodeAll(recs)
	if err != nil {
		live.Close()
		return nil, fmt.Errorf("subscribe to session %s: %w", id, err)
	}
	sub := &Subscription{backlog: backlog, live: live, lastSeq: afterSeq}
	if n := len(backlog); n > 0 {
		sub.lastSeq = backlog[n-1].Seq
	}
	return sub, nil
}

// Next returns the next event, waiting for a live one when the stored ones
// are delivered. It returns ctx's error when ctx ends and event.ErrClosed
// after Close.
func (x *Subscription) Next(ctx context.Context) (event.Event, error) {
	if len(x.backlog) > 0 {
		ev := x.backlog[0]
		x.backlog[0] = event.Event{}
		x.backlog = x.backlog[1:]
		return ev, nil
	}
	for {
		ev, err := x.live.Next(ctx)
		if err != nil {
			return ev, err
		}
		if ev.Seq == 0 {
			return ev, nil
		}
		// Defensive: the lock in Subscribe already rules out an overlap.
		if ev.Seq <= x.lastSeq {
			continue
		}
		x.lastSeq = ev.Seq
		return ev, nil
	}
}

// Close ends the subscription.
func (x *Subscription) Close() { x.live.Close() }
