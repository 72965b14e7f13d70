package event

import (
	"context"
	"sync"
)

// Bus fans published events out to subscribers. Publishing never blocks on
// a slow subscriber: each subscription queues what it has not read yet, in
// publish order.
type Bus struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

// NewBus returns an empty bus.
func NewBus() *Bus {
	return &Bus{subs: make(map[*Subscription]struct{})}
}

// Subscribe returns a subscription to the events for which match returns
// true (nil matches every event). The caller must Close it.
func (b *Bus) Subscribe(match func(Event) bool) *Subscription {
	s := &Subscription{bus: b, match: match, signal: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Publish hands ev to every matching subscription.
func (b *Bus) Publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if s.match == nil || s.match(ev) {
			s.push(ev)
		}
	}
}

// Subscription is one subscriber's ordered queue of events.
type Subscription struct {
	bus    *Bus
	match  func(Event) bool
	mu     sync.Mutex
	queue  []Event
	closed bool
	signal chan struct{}
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Next returns the next event, waiting until one is published, ctx ends, or
// the subscription is closed (ErrClosed).
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = Event{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return ev, nil
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return Event{}, ErrClosed
		}
		select {
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case <-s.signal:
		}
	}
}

// TryNext returns the next queued event without waiting.
func (s *Subscription) TryNext() (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Event{}, false
	}
	ev := s.queue[0]
	s.queue[0] = Event{}
	s.queue = s.queue[1:]
	return ev, true
}

// Close stops delivery; events already queued can still be read with Next
// until it returns ErrClosed.
func (s *Subscription) Close() {
	s.bus.mu.Lock()
	delete(s.bus.subs, s)
	s.bus.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// ErrClosed is returned by Next on a closed, drained subscription.
var ErrClosed = errClosed{}

type errClosed struct{}

func (errClosed) Error() string { return "subscription closed" }
