package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Prompt is one entry of prompt history: something the person typed.
type Prompt struct {
	ID        int64     `json:"id"`
	Text      string    `json:"text"`
	Workspace string    `json:"workspace,omitempty"`
	At        time.Time `json:"at"`
}

// AddPrompt records a prompt for recall. Blank prompts are ignored, and so
// is a prompt equal to the previous one in the same workspace (pressing
// enter on a recalled prompt must not fill history with copies). It
// reports whether the prompt was added.
func (s *Store) AddPrompt(ctx context.Context, text, workspace string) (bool, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return false, nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, classify(s.file, fmt.Errorf("add prompt: %w", err))
	}
	defer rollback(tx)
	var last string
	err = tx.QueryRowContext(ctx, `SELECT text FROM prompt_history WHERE workspace = ?
		ORDER BY id DESC LIMIT 1`, workspace).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, classify(s.file, fmt.Errorf("add prompt: %w", err))
	}
	if err == nil && last == text {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO prompt_history (text, workspace, created_at)
		VALUES (?, ?, ?)`, text, workspace, s.now()); err != nil {
		return false, classify(s.file, fmt.Errorf("add prompt: %w", err))
	}
	if err := tx.Commit(); err != nil {
		return false, classify(s.file, fmt.Errorf("add prompt: %w", err))
	}
	return true, nil
}

// RecentPrompts returns up to limit prompts, newest first; workspace ""
// means all workspaces.
func (s *Store) RecentPrompts(ctx context.Context, workspace string, limit int) ([]Prompt, error) {
	q := `SELECT id, text, workspace, created_at FROM prompt_history`
	args := []any{}
	if workspace != "" {
		q += ` WHERE workspace = ?`
		args = append(args, workspace)
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limitOrAll(limit))
	return s.queryPrompts(ctx, "recent prompts", q, args...)
}

// SearchPrompts returns up to limit prompts matching query (every word, as
// a prefix, so that it works while typing), best match first; workspace ""
// means all workspaces.
func (s *Store) SearchPrompts(ctx context.Context, query, workspace string, limit int) ([]Prompt, error) {
	match := ftsQuery(query, true)
	if match == "" {
		return nil, nil
	}
	q := `SELECT p.id, p.text, p.workspace, p.created_at FROM prompt_history_fts f
		JOIN prompt_history p ON p.id = f.rowid WHERE prompt_history_fts MATCH ?`
	args := []any{match}
	if workspace != "" {
		q += ` AND p.workspace = ?`
		args = append(args, workspace)
	}
	q += ` ORDER BY f.rank, p.id DESC LIMIT ?`
	args = append(args, limitOrAll(limit))
	return s.queryPrompts(ctx, "search prompts", q, args...)
}

func (s *Store) queryPrompts(ctx context.Context, op, q string, args ...any) ([]Prompt, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rows.Close()
	var out []Prompt
	for rows.Next() {
		var p Prompt
		var at int64
		if err := rows.Scan(&p.ID, &p.Text, &p.Workspace, &at); err != nil {
			return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
		}
		p.At = fromMillis(at)
		out = append(out, p)
	}
	return out, classify(s.file, rows.Err())
}
