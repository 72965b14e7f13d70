package session

import (
	"context"
	"sync"
)

// live is what the service holds for one session used in this process:
// the order of its emits, its publisher, its running turn and the prompts
// queued behind it — one struct per session rather than a map per
// concern. Fields other than emitMu are guarded by Service.mu.
type live struct {
	// emitMu orders the session's emits (emit.go).
	emitMu sync.Mutex
	// pub publishes the session's events in order, once stored (emit.go).
	pub *publisher
	// cancel cancels the running turn; nil when none runs (prompt.go).
	cancel context.CancelFunc
	// finished is set once the running turn emitted turn_finished but has
	// not yet returned (it still saves its memory and status): Busy is
	// false, as the event stream says, while begin still refuses a second
	// turn until the first returned.
	finished bool
	// queue holds the prompts waiting for the admitted prompt (queue.go);
	// nil when none was admitted.
	queue *queue
	// modes are the session's queue delivery modes when set
	// (queuemodes.go); nil: the defaults.
	modes *QueueModes
	// idle is closed when the session is released (no turn and no
	// admitted prompt holds it); made by WaitIdle, nil when nobody waits.
	idle chan struct{}
}

// liveLocked returns the session's live state, made on first use. Called
// with s.mu held.
func (s *Service) liveLocked(id string) *live {
	l := s.sessions[id]
	if l == nil {
		l = &live{pub: &publisher{}}
		s.sessions[id] = l
	}
	return l
}

// queueLocked returns the session's queue, nil when no prompt was
// admitted. Called with s.mu held.
func (s *Service) queueLocked(id string) *queue {
	if l := s.sessions[id]; l != nil {
		return l.queue
	}
	return nil
}

// dropQueueLocked forgets q if it is still the session's queue. Called
// with s.mu held.
func (s *Service) dropQueueLocked(id string, q *queue) {
	if l := s.sessions[id]; l != nil && l.queue == q {
		l.queue = nil
		releasedLocked(l)
	}
}

// releasedLocked wakes the WaitIdle callers of l once nothing holds the
// session. Called with s.mu held.
func releasedLocked(l *live) {
	if l.cancel == nil && l.queue == nil && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
}

// WaitIdle returns once the session is released in this process: no turn
// runs (the turn that emitted turn_finished has returned) and no admitted
// prompt holds it, so Submit with WhenBusyRefuse would admit a prompt (as
// long as nothing takes the session first). It is woken by the release
// itself, not by polling. It returns ctx's error when ctx ends first. A
// session generating in another olly process is not waited for.
func (s *Service) WaitIdle(ctx context.Context, id string) error {
	for {
		s.mu.Lock()
		l := s.sessions[id]
		if l == nil || (l.cancel == nil && l.queue == nil) {
			s.mu.Unlock()
			return nil
		}
		if l.idle == nil {
			l.idle = make(chan struct{})
		}
		ch := l.idle
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// forgetLocked drops what the process holds of a deleted session: its
// live state (queue modes among it) and its workspace. A WaitIdle waiting
// on it is woken: the session is gone, not busy. Called with s.mu held.
func (s *Service) forgetLocked(id string) {
	if l := s.sessions[id]; l != nil && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
	delete(s.sessions, id)
	delete(s.spaces, id)
}
