package session

import (
	"fmt"
	"strings"
)

// QueueMode says how many queued messages of one kind are delivered at a
// time (pi's steeringMode and followUpMode).
type QueueMode string

// The queue modes.
const (
	// QueueAll delivers every waiting message at once: a turn reads all
	// the steering messages at its next step; all the follow-ups run as
	// one turn, their texts joined.
	QueueAll QueueMode = "all"
	// QueueOneAtATime delivers one: a turn reads one steering message per
	// step; each follow-up is a turn of its own.
	QueueOneAtATime QueueMode = "one-at-a-time"
)

// QueueModes are a session's delivery modes for steering and follow-up
// messages. They last as long as the process (they are not stored).
type QueueModes struct {
	Steering QueueMode `json:"steeringMode"`
	FollowUp QueueMode `json:"followUpMode"`
	// Interrupt says when a running turn reads steering messages.
	Interrupt InterruptMode `json:"interruptMode"`
}

// InterruptMode says when a running turn reads steering messages (pi's
// interruptMode).
type InterruptMode string

// The interrupt modes.
const (
	// InterruptWait: after all the tool calls of the model's response.
	InterruptWait InterruptMode = "wait"
	// InterruptImmediate: as soon as the call running when it arrived
	// ends; the response's remaining calls are not run (the model is
	// told so and may call them again).
	InterruptImmediate InterruptMode = "immediate"
)

// ParseInterruptMode reads an interrupt mode's wire name.
func ParseInterruptMode(v string) (InterruptMode, error) {
	switch m := InterruptMode(strings.TrimSpace(v)); m {
	case InterruptWait, InterruptImmediate:
		return m, nil
	}
	return "", fmt.Errorf("%q is not an interrupt mode: use immediate or wait", v)
}

// DefaultQueueModes are olly's: every steering message at the next step,
// follow-ups one turn each.
func DefaultQueueModes() QueueModes {
	return QueueModes{Steering: QueueAll, FollowUp: QueueOneAtATime, Interrupt: InterruptWait}
}

// ParseQueueMode reads a mode's wire name.
func ParseQueueMode(v string) (QueueMode, error) {
	switch m := QueueMode(strings.TrimSpace(v)); m {
	case QueueAll, QueueOneAtATime:
		return m, nil
	}
	return "", fmt.Errorf("%q is not a queue mode: use all or one-at-a-time", v)
}

// QueueModes returns the session's delivery modes.
func (s *Service) QueueModes(id string) QueueModes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queueModesLocked(id)
}

// SetQueueModes changes the session's delivery modes; an empty field
// keeps the current one. Messages already queued are delivered the new
// way.
func (s *Service) SetQueueModes(id string, m QueueModes) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.queueModesLocked(id)
	if m.Steering != "" {
		cur.Steering = m.Steering
	}
	if m.FollowUp != "" {
		cur.FollowUp = m.FollowUp
	}
	if m.Interrupt != "" {
		cur.Interrupt = m.Interrupt
	}
	s.liveLocked(id).modes = &cur
}

func (s *Service) queueModesLocked(id string) QueueModes {
	if l := s.sessions[id]; l != nil && l.modes != nil {
		return *l.modes
	}
	return DefaultQueueModes()
}

// steeringInterrupts reports whether a steering message waits for the
// session's running turn and its interrupt mode is immediate.
func (s *Service) steeringInterrupts(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queueModesLocked(id).Interrupt != InterruptImmediate {
		return false
	}
	q := s.queueLocked(id)
	return q != nil && len(q.steer) > 0
}

// InterruptNow reports whether the turn should stop running its current
// response's tool calls: a steering message waits and the session's
// interrupt mode is immediate.
func (t *Turn) InterruptNow() bool {
	return t != nil && t.interrupts != nil && t.interrupts()
}

// takeFollowUps pops the next follow-up turn from follow (not empty): the
// first message, or in QueueAll the first with every later one that runs
// the same way (mode, model), their texts joined by blank lines.
func takeFollowUps(follow []PromptInput, mode QueueMode) (PromptInput, []PromptInput) {
	in := follow[0]
	rest := follow[1:]
	if mode != QueueAll {
		return in, rest
	}
	if !joinable(in) {
		return in, rest
	}
	var keep []PromptInput
	texts := []string{in.Text}
	for _, next := range rest {
		if joinable(next) && next.Mode == in.Mode && next.Model == in.Model {
			texts = append(texts, next.Text)
			continue
		}
		keep = append(keep, next)
	}
	in.Text = strings.Join(texts, "\n\n")
	return in, keep
}

// joinable: a plain prompt, which may share a turn with others (not a
// slash command, not a plan's implementation).
func joinable(in PromptInput) bool {
	return in.FromPlan == 0 && !in.implement && !strings.HasPrefix(strings.TrimSpace(in.Text), "/")
}
