package session

import (
	"context"
	"encoding/json"

	"github.com/olly-agent/olly/internal/store"
)

// saveMemory stores the runner's session memory on the session row
// (session_memory), where the next turn — in this process or after a
// restart — finds it as Turn.Memory. It runs even when the caller gave up:
// the turn's notes are as real as its events. Memory is an aid, not a
// record: a failure to store it is logged, and the turn's outcome stands.
func (s *Service) saveMemory(ctx context.Context, id string, res *TurnResult) {
	if res == nil || len(res.Memory) == 0 {
		return
	}
	if !json.Valid(res.Memory) {
		s.logger().Warn("session memory: the runner returned invalid JSON; not stored", "session", id)
		return
	}
	_, err := s.store.UpdateSession(context.WithoutCancel(ctx), id, func(x *store.Session) error {
		x.SessionMemory = res.Memory
		return nil
	})
	if err != nil {
		s.logger().Warn("session memory: could not store it", "session", id, "error", err)
	}
}
