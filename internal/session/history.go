package session

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/store"
)

// recordPrompt adds a submitted prompt to the prompt history, with the
// session's workspace; the store drops a repeat of the previous prompt.
func (s *Service) recordPrompt(ctx context.Context, id, text string) error {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.store.AddPrompt(ctx, text, sess.Workspace); err != nil {
		return fmt.Errorf("record the prompt in the prompt history: %w", err)
	}
	return nil
}

// Prompts returns the prompt history for recall: with query, the prompts
// matching every word (as prefixes, so it works while typing), best first;
// without, the most recent first. dir "" means every workspace; limit 0
// means no limit.
func (s *Service) Prompts(ctx context.Context, dir, query string, limit int) ([]store.Prompt, error) {
	ws := ""
	if dir != "" {
		key, err := WorkspaceKey(dir)
		if err != nil {
			return nil, err
		}
		ws = key
	}
	if query != "" {
		return s.store.SearchPrompts(ctx, query, ws, limit)
	}
	return s.store.RecentPrompts(ctx, ws, limit)
}
