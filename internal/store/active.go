package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ErrTooManyActive: as many sessions as allowed are generating already
// (SetMaxGenerating, agent.maxActiveSessions).
var ErrTooManyActive = errors.New("too many sessions are running")

// ActiveLimitError says which sessions hold the places and what to do.
type ActiveLimitError struct {
	Limit int
	// Active are the sessions generating now, in this process or others.
	Active []Session
}

func (e *ActiveLimitError) Error() string {
	var names []string
	for _, s := range e.Active {
		who := "this olly"
		if o := s.Owner; o != nil {
			who = fmt.Sprintf("olly process %d on %s", o.PID, o.Host)
		}
		title := s.Title
		if title == "" {
			title = "untitled"
		}
		names = append(names, fmt.Sprintf("%s %q (%s)", s.ID, title, who))
	}
	plural := "s"
	if e.Limit == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d session%s may run at a time (agent.maxActiveSessions) and %s already running: %s — wait for one to finish or stop it, "+
		"or allow more with `olly config set agent.maxActiveSessions %d` (at most 5)",
		e.Limit, plural, countRunning(len(e.Active)), strings.Join(names, "; "), min(e.Limit+1, 5))
}

func countRunning(n int) string {
	if n == 1 {
		return "1 is"
	}
	return fmt.Sprintf("%d are", n)
}

// Is matches ErrTooManyActive.
func (e *ActiveLimitError) Is(target error) bool { return target == ErrTooManyActive }

// SetMaxGenerating bounds how many sessions may generate at once, counted
// across every process that uses the database (each records itself as the
// owner of the sessions it generates in; a session whose process is gone
// does not count). SetStatus(generating) fails with an *ActiveLimitError
// past it. 0 or less: no bound.
func (s *Store) SetMaxGenerating(n int) {
	s.maxGenerating.Store(int32(max(n, 0)))
}

// checkActive refuses to start generating in session id when the bound is
// reached; it runs inside SetStatus's transaction, so two processes
// cannot both take the last place.
func (s *Store) checkActive(ctx context.Context, tx *sql.Tx, id string) error {
	limit := int(s.maxGenerating.Load())
	if limit <= 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+sessionSelect+` FROM sessions WHERE status = ? AND id != ?`, string(StatusGenerating), id)
	if err != nil {
		return classify(s.file, fmt.Errorf("count running sessions: %w", err))
	}
	defer rows.Close()
	var active []Session
	for rows.Next() {
		x, err := s.scanSession(rows)
		if err != nil {
			return classify(s.file, fmt.Errorf("count running sessions: %w", err))
		}
		if x.Status == StatusGenerating { // scanSession marks the orphaned interrupted
			active = append(active, *x)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(s.file, fmt.Errorf("count running sessions: %w", err))
	}
	if len(active) < limit {
		return nil
	}
	return &ActiveLimitError{Limit: limit, Active: active}
}
