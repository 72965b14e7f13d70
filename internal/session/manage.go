package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// maxTitle bounds a title a person gives, in characters.
const maxTitle = 200

// Rename sets the session's title and records it as a title_changed event,
// so the history shows it like a title the agent gave. The event belongs to
// no turn (turn 0).
func (s *Service) Rename(ctx context.Context, id, title string) (*store.Session, error) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return nil, errors.New("rename: the title is empty; give the new title")
	}
	if n := utf8.RuneCountInString(title); n > maxTitle {
		return nil, fmt.Errorf("rename: the title has %d characters; keep it under %d", n, maxTitle)
	}
	if _, err := s.Open(ctx, id); err != nil {
		return nil, err
	}
	sess, err := s.store.UpdateSession(ctx, id, func(x *store.Session) error { x.Title = title; return nil })
	if err != nil {
		return nil, err
	}
	if _, err := s.Emit(ctx, id, 0, event.TitleChanged{Title: title}); err != nil {
		return nil, err
	}
	return sess, nil
}

// Delete deletes the session with its events, checkpoints and vectors. Only
// a person's explicit request may call it (seed critical rule #2). A
// session generating in a live process — this one or another — is refused:
// its agent would go on writing into a session that no longer exists. An
// interrupted session (its process is gone) may be deleted.
func (s *Service) Delete(ctx context.Context, id string) error {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return err
	}
	if err := s.begin(id, func() {}); err != nil {
		return fmt.Errorf("cannot delete: %w", err)
	}
	err = checkIdle(sess, "delete it")
	if err == nil {
		err = s.store.DeleteSession(ctx, id)
	}
	if err != nil {
		s.end(id)
		return err
	}
	// Deleted: nothing of it stays in memory (end would make it anew).
	s.mu.Lock()
	s.forgetLocked(id)
	s.mu.Unlock()
	return nil
}
