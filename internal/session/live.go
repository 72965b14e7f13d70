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
	}
}

// forgetLocked drops what the process holds of a deleted session: its
// live state (queue modes among it) and its workspace. Called with s.mu
// held.
func (s *Service) forgetLocked(id string) {
	delete(s.sessions, id)
	delete(s.spaces, id)
}
