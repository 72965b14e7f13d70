package session

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// What frontends ask of a session beyond its timeline: counts, the last
// answer, the prompts a branch can start from, and the raw log for
// clients that reconnect. Computed here, once, for every frontend.

// Stats are counts over a session's current branch.
type Stats struct {
	Turns             int
	UserMessages      int // prompts and steering messages
	AssistantMessages int
	ToolCalls         int
	ToolResults       int
	// InputTokens and OutputTokens add up every request's counts;
	// ContextTokens is the last request's prompt, of ContextWindow.
	InputTokens, OutputTokens    int
	ContextTokens, ContextWindow int
	// Context is what the last request's prompt was made of, by
	// category (its token_usage event's categories): a snapshot, like
	// ContextTokens, not a sum.
	Context event.TokenCategories
	// Pending are the lines of changes not yet kept or undone.
	Pending store.DiffStats
}

// Stats counts the session's current branch.
func (s *Service) Stats(ctx context.Context, id string) (*Stats, error) {
	evs, err := s.History(ctx, id)
	if err != nil {
		return nil, err
	}
	st := &Stats{}
	for _, ev := range evs {
		st.Turns = max(st.Turns, ev.Turn)
		switch p := ev.Data.(type) {
		case event.UserMessage:
			st.UserMessages++
		case event.AssistantMessage:
			st.AssistantMessages++
			st.ToolCalls += len(p.ToolCalls)
		case event.ToolResult:
			st.ToolResults++
		case event.TokenUsage:
			st.InputTokens += p.PromptTokens
			st.OutputTokens += p.CompletionTokens
			st.ContextWindow, st.ContextTokens, st.Context = p.ContextWindow, p.PromptTokens, p.Categories
		}
	}
	if st.Pending, err = s.store.SessionPendingStats(ctx, id); err != nil {
		return nil, err
	}
	return st, nil
}

// LastAnswer returns the agent's last answer on the current branch: the
// last final message, or the last assistant text; ok is false when there
// is none.
func (s *Service) LastAnswer(ctx context.Context, id string) (text string, ok bool, err error) {
	evs, err := s.History(ctx, id)
	if err != nil {
		return "", false, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		switch p := evs[i].Data.(type) {
		case event.FinalMessage:
			return p.Text, true, nil
		case event.AssistantMessage:
			if p.Text != "" {
				return p.Text, true, nil
			}
		}
	}
	return "", false, nil
}

// PromptRef is a prompt on a session's branch: where Branch can start.
type PromptRef struct {
	Seq  int64
	Turn int
	Text string
}

// BranchPrompts lists the prompts of the current branch, oldest first;
// messages sent into a running turn (steering) are part of that turn and
// not listed.
func (s *Service) BranchPrompts(ctx context.Context, id string) ([]PromptRef, error) {
	evs, err := s.History(ctx, id)
	if err != nil {
		return nil, err
	}
	out := []PromptRef{}
	for _, ev := range evs {
		if p, ok := ev.Data.(event.UserMessage); ok && !p.Steering {
			out = append(out, PromptRef{Seq: ev.Seq, Turn: ev.Turn, Text: p.Text})
		}
	}
	return out, nil
}

// Events returns the session's stored events after afterSeq, every branch,
// in log order, at most limit (0: all): what a client that reconnects
// replays before the live stream.
func (s *Service) Events(ctx context.Context, id string, afterSeq int64, limit int) ([]event.Event, error) {
	recs, err := s.store.Events(ctx, id, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return decodeAll(recs)
}

// LastSeq returns the seq of the session's newest event (0: none).
func (s *Service) LastSeq(ctx context.Context, id string) (int64, error) {
	return s.store.LastSeq(ctx, id)
}
