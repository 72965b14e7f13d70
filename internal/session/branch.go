package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// BranchPoint is where a session continues after Branch, or where a Fork
// was cut: just before the prompt at Seq, so the next prompt takes that
// prompt's place and both lines stay in the log (seed 002, branching from a
// user message).
type BranchPoint struct {
	SessionID string `json:"sessionId"`
	// Seq and Turn are the prompt's (its user_message event's); Prompt is
	// its text, for a frontend to offer for editing.
	Seq    int64  `json:"seq"`
	Turn   int    `json:"turn"`
	Prompt string `json:"prompt"`
	// Leaf is the event the next one follows: the last event before the
	// prompt's turn (0: the next prompt starts a new root).
	Leaf int64 `json:"leaf"`
}

// Branch moves the session's leaf to just before the prompt at seq (a
// user_message event on any branch): the next prompt starts a new branch
// there, and the old branch stays in the log (see Tree). It is refused
// while the session is generating.
func (s *Service) Branch(ctx context.Context, id string, seq int64) (*BranchPoint, error) {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	// Holding the turn slot keeps a prompt in this process from starting
	// between the check and the move.
	if err := s.begin(id, func() {}); err != nil {
		return nil, err
	}
	defer s.end(id)
	if err := checkIdle(sess, "branch it"); err != nil {
		return nil, err
	}
	bp, err := s.branchPoint(ctx, id, seq)
	if err != nil {
		return nil, err
	}
	if err := s.store.SetLeaf(ctx, id, bp.Leaf); err != nil {
		return nil, fmt.Errorf("branch session %s at %d: %w", id, seq, err)
	}
	return bp, nil
}

// Fork copies the session into a new one that records where it came from
// (store.Session.ParentSessionID and ForkedFromSeq). With seq 0 the copy is
// the current branch up to its leaf; with the seq of a prompt it is the
// branch up to just before that prompt's turn, as Branch cuts it, and the
// BranchPoint says where; cut before the first prompt, the fork is an
// untitled session with no events that still records its parent. The
// original is not changed.
func (s *Service) Fork(ctx context.Context, id string, seq int64) (*store.Session, *BranchPoint, error) {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	var bp *BranchPoint
	at := sess.LeafSeq
	if seq != 0 {
		if bp, err = s.branchPoint(ctx, id, seq); err != nil {
			return nil, nil, err
		}
		at = bp.Leaf
		if at == 0 {
			// Cut before the first prompt: the fork holds nothing yet
			// but still records where it came from (pi's fork of the
			// first message).
			at = store.ForkEmpty
		}
	} else {
		// Copying the tip of a turn that is still running would cut it in
		// half.
		if s.Busy(id) {
			return nil, nil, fmt.Errorf("session %s is working on a prompt: fork it at an earlier prompt (its seq), or when the turn ends: %w", id, ErrBusy)
		}
		if err := checkIdle(sess, "fork it at an earlier prompt (its seq), or"); err != nil {
			return nil, nil, err
		}
		if at == 0 {
			return nil, nil, fmt.Errorf("session %s has no events yet: there is nothing to fork", id)
		}
	}
	fork, err := s.store.Fork(ctx, id, at, "")
	if err != nil {
		return nil, nil, err
	}
	return fork, bp, nil
}

// branchPoint finds where a branch before the prompt at seq starts.
func (s *Service) branchPoint(ctx context.Context, id string, seq int64) (*BranchPoint, error) {
	rec, err := s.store.Event(ctx, id, seq)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("session %s has no event %d — `olly sessions tree %s` lists its prompts with their seqs: %w", id, seq, id, err)
	}
	if err != nil {
		return nil, err
	}
	if rec.Type != string(event.TypeUserMessage) {
		return nil, fmt.Errorf("event %d of session %s is a %s, not a prompt — `olly sessions tree %s` lists the prompts with their seqs", seq, id, rec.Type, id)
	}
	var um event.UserMessage
	if err := json.Unmarshal(rec.Payload, &um); err != nil {
		return nil, fmt.Errorf("event %d of session %s: %w", seq, id, err)
	}
	if um.Steering {
		return nil, fmt.Errorf("event %d of session %s is a message sent into a running turn, not a prompt: branch at the prompt of turn %d instead — `olly sessions tree %s` lists the prompts with their seqs", seq, id, rec.Turn, id)
	}
	path, err := s.store.Path(ctx, id, seq)
	if err != nil {
		return nil, err
	}
	// The turn began before its user message (turn_started comes first):
	// the branch goes before the turn's first event, or the new turn
	// would inherit the old one's start.
	leaf := rec.ParentSeq
	for i := len(path) - 1; i >= 0 && path[i].Turn == rec.Turn; i-- {
		leaf = path[i].ParentSeq
	}
	return &BranchPoint{SessionID: id, Seq: seq, Turn: rec.Turn, Prompt: um.Text, Leaf: leaf}, nil
}

// checkIdle refuses to change a session that a process is generating in
// (this one or another; interrupted sessions are not generating). doing
// completes "…; <doing> when it has finished".
func checkIdle(sess *store.Session, doing string) error {
	if sess.Status != store.StatusGenerating {
		return nil
	}
	where := ""
	if o := sess.Owner; o != nil {
		where = fmt.Sprintf(" (olly process %d on %s)", o.PID, o.Host)
	}
	return fmt.Errorf("session %s is generating%s; %s when it has finished: %w", sess.ID, where, doing, ErrBusy)
}
