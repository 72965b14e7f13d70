package event

import (
	"context"
	"sync"
)

type Bus struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

func NewBus() *Bus {
	return &Bus{subs: make(map[*Subscription]struct{})}
}

func (b *Bus) Subscribe(match func(Event) bool) *Subscription {
	s := &Subscription{bus: b, match: match, signal: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

func (b *Bus) Publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if s.match == nil || s.match(ev) {
			s.push(ev)
		}
	}
}

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

var ErrClosed = errClosed{}

type errClosed struct{}

func (errClosed) Error() string { return "subscription closed" }
