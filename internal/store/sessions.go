package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Status says what a session is doing.
type Status string

// Known statuses. Others (snake_case) may be stored; the store gives
// meaning only to these.
const (
	StatusIdle       Status = "idle"
	StatusGenerating Status = "generating"
	StatusError      Status = "error"
	// StatusInterrupted is never stored: it is how a session reads when it
	// was left generating by a process on this host that no longer runs.
	StatusInterrupted Status = "interrupted"
)

// Session is one conversation in a workspace, with its per-session
// overrides and its position in the event tree.
type Session struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Workspace     string `json:"workspace"` // absolute path
	Mode          string `json:"mode"`
	Model         string `json:"model"`
	ExplorerModel string `json:"explorerModel"`
	Status        Status `json:"status"`
	// Owner is the process generating, while Status is generating or
	// interrupted.
	Owner                     *Owner `json:"owner,omitempty"`
	AutoApproveCommands       bool   `json:"autoApproveCommands"`
	AutoApproveSensitiveEdits bool   `json:"autoApproveSensitiveEdits"`
	// SensitivePatterns overrides the settings' file rules when non-nil.
	SensitivePatterns json.RawMessage `json:"sensitivePatterns,omitempty"`
	SessionMemory     json.RawMessage `json:"sessionMemory,omitempty"`
	// ParentSessionID and ForkedFromSeq say where a fork came from.
	ParentSessionID string `json:"parentSessionId,omitempty"`
	ForkedFromSeq   int64  `json:"forkedFromSeq,omitempty"`
	// LeafSeq is the tip of the current branch: the parent of the next
	// appended event (0: the next event is a root).
	LeafSeq   int64     `json:"leafSeq"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

const sessionCols = `id, title, workspace, mode, model, explorer_model, status,
	owner_pid, owner_host, owner_start, auto_approve_commands, auto_approve_sensitive_edits,
	sensitive_patterns, session_memory, parent_session_id, forked_from_seq, leaf_seq,
	created_at, updated_at`

// leafExpr is a session row's leaf (in a query on sessions not aliased):
// with leaf_at_end set, the append path no longer stores it at each
// commit and it is the last event's seq (migrations/0010_leaf_at_end.sql).
const leafExpr = `CASE WHEN leaf_at_end THEN
	(SELECT coalesce(max(seq), 0) FROM events WHERE session_id = sessions.id) ELSE leaf_seq END`

// sessionSelect reads sessionCols (scanSession), the leaf by leafExpr.
var sessionSelect = strings.Replace(sessionCols, "leaf_seq", leafExpr, 1)

type scanner interface{ Scan(dest ...any) error }

func (s *Store) scanSession(row scanner) (*Session, error) {
	var (
		x                  Session
		pid, start, forked sql.NullInt64
		host, parent       sql.NullString
		patterns, memory   sql.NullString
		created, updated   int64
	)
	if err := row.Scan(&x.ID, &x.Title, &x.Workspace, &x.Mode, &x.Model, &x.ExplorerModel, &x.Status,
		&pid, &host, &start, &x.AutoApproveCommands, &x.AutoApproveSensitiveEdits,
		&patterns, &memory, &parent, &forked, &x.LeafSeq, &created, &updated); err != nil {
		return nil, err
	}
	if pid.Valid {
		x.Owner = &Owner{PID: int(pid.Int64), Host: host.String, Start: start.Int64}
	}
	if x.Status == StatusGenerating && x.Owner != nil && x.Owner.gone(s.me) {
		x.Status = StatusInterrupted
	}
	if patterns.Valid {
		x.SensitivePatterns = json.RawMessage(patterns.String)
	}
	if memory.Valid {
		x.SessionMemory = json.RawMessage(memory.String)
	}
	x.ParentSessionID, x.ForkedFromSeq = parent.String, forked.Int64
	x.CreatedAt, x.UpdatedAt = fromMillis(created), fromMillis(updated)
	return &x, nil
}

// CreateSession stores a new session. An empty ID gets a NewID; Status
// defaults to idle; times are set now. Fork origin and leaf are not taken
// from sess (Fork sets them).
func (s *Store) CreateSession(ctx context.Context, sess *Session) error {
	if sess.ID == "" {
		sess.ID = NewID(s.opts.Now())
	}
	if sess.Status == "" {
		sess.Status = StatusIdle
	}
	if err := checkSession(sess); err != nil {
		return err
	}
	if sess.Status == StatusGenerating {
		me := s.me
		sess.Owner = &me
	} else {
		sess.Owner = nil
	}
	now := s.now()
	sess.CreatedAt, sess.UpdatedAt = fromMillis(now), fromMillis(now)
	sess.ParentSessionID, sess.ForkedFromSeq, sess.LeafSeq = "", 0, 0
	_, err := s.w.ExecContext(ctx, `INSERT INTO sessions (`+sessionCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, ?, ?)`,
		sessionArgs(sess, now, now)...)
	if err != nil {
		return classify(s.file, fmt.Errorf("create session %s: %w", sess.ID, err))
	}
	return nil
}

// sessionArgs are sess's columns up to session_memory, then the two times.
func sessionArgs(sess *Session, created, updated int64) []any {
	var pid, start, host any
	if sess.Owner != nil {
		pid, host, start = sess.Owner.PID, sess.Owner.Host, sess.Owner.Start
	}
	return []any{sess.ID, sess.Title, sess.Workspace, sess.Mode, sess.Model, sess.ExplorerModel,
		string(sess.Status), pid, host, start, sess.AutoApproveCommands, sess.AutoApproveSensitiveEdits,
		nullJSON(sess.SensitivePatterns), nullJSON(sess.SessionMemory), created, updated}
}

func checkSession(sess *Session) error {
	if !filepath.IsAbs(sess.Workspace) {
		return fmt.Errorf("session %s: workspace %q is not an absolute path", sess.ID, sess.Workspace)
	}
	sess.Workspace = filepath.Clean(sess.Workspace)
	if !validName(string(sess.Status)) || sess.Status == StatusInterrupted {
		return fmt.Errorf("session %s: cannot store status %q", sess.ID, sess.Status)
	}
	for name, v := range map[string]json.RawMessage{
		"sensitivePatterns": sess.SensitivePatterns, "sessionMemory": sess.SessionMemory,
	} {
		if len(v) > 0 && !json.Valid(v) {
			return fmt.Errorf("session %s: %s is not valid JSON", sess.ID, name)
		}
	}
	return nil
}

func nullJSON(v json.RawMessage) any {
	if len(v) == 0 {
		return nil
	}
	return string(v)
}

// Session returns the session with id, or an error wrapping ErrNotFound.
func (s *Store) Session(ctx context.Context, id string) (*Session, error) {
	return s.session(ctx, s.r, id)
}

func (s *Store) session(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (*Session, error) {
	sess, err := s.scanSession(q.QueryRowContext(ctx, `SELECT `+sessionSelect+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("read session %s: %w", id, err))
	}
	return sess, nil
}

// UpdateSession reads the session, lets edit change it, and writes back
// the fields a person or the agent may change: title, mode, model,
// explorer model, auto-approve flags, sensitive patterns and session
// memory. It all happens under the write lock, so concurrent updates do
// not lose each other's changes; edit must therefore not call the Store.
// It returns the stored session.
func (s *Store) UpdateSession(ctx context.Context, id string, edit func(*Session) error) (*Session, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("update session %s: %w", id, err))
	}
	defer rollback(tx)
	sess, err := s.session(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := edit(sess); err != nil {
		return nil, fmt.Errorf("update session %s: %w", id, err)
	}
	sess.ID = id
	if sess.Status == StatusInterrupted {
		sess.Status = StatusGenerating // what is stored; edit cannot change the status
	}
	if err := checkSession(sess); err != nil {
		return nil, err
	}
	now := s.now()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, mode = ?, model = ?,
		explorer_model = ?, auto_approve_commands = ?, auto_approve_sensitive_edits = ?,
		sensitive_patterns = ?, session_memory = ?, updated_at = ? WHERE id = ?`,
		sess.Title, sess.Mode, sess.Model, sess.ExplorerModel, sess.AutoApproveCommands,
		sess.AutoApproveSensitiveEdits, nullJSON(sess.SensitivePatterns), nullJSON(sess.SessionMemory),
		now, id); err != nil {
		return nil, classify(s.file, fmt.Errorf("update session %s: %w", id, err))
	}
	if err := tx.Commit(); err != nil {
		return nil, classify(s.file, fmt.Errorf("update session %s: %w", id, err))
	}
	return s.Session(ctx, id)
}

// SetStatus records what the session is doing. Setting generating records
// this process as the owner, and fails with ErrSessionBusy while another
// live process is generating in the session; a session whose generating
// process is gone (interrupted) may be taken over. Any other status clears
// the owner. Interrupted cannot be set: it is derived.
func (s *Store) SetStatus(ctx context.Context, id string, st Status) error {
	if !validName(string(st)) || st == StatusInterrupted {
		return fmt.Errorf("session %s: cannot set status %q", id, st)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.file, fmt.Errorf("set status of session %s: %w", id, err))
	}
	defer rollback(tx)
	cur, err := s.session(ctx, tx, id)
	if err != nil {
		return err
	}
	var pid, host, start any
	if st == StatusGenerating {
		if cur.Status == StatusGenerating && cur.Owner != nil && *cur.Owner != s.me {
			return fmt.Errorf("session %s (pid %d on %s): %w", id, cur.Owner.PID, cur.Owner.Host, ErrSessionBusy)
		}
		if err := s.checkActive(ctx, tx, id); err != nil { // active.go: agent.maxActiveSessions
			return err
		}
		pid, host, start = s.me.PID, s.me.Host, s.me.Start
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ?, owner_pid = ?, owner_host = ?,
		owner_start = ? WHERE id = ?`, string(st), pid, host, start, id); err != nil {
		return classify(s.file, fmt.Errorf("set status of session %s: %w", id, err))
	}
	return classify(s.file, tx.Commit())
}

// ListFilter selects sessions. Zero fields do not filter.
type ListFilter struct {
	Workspace string
	Status    Status // interrupted and generating are told apart
	Limit     int    // 0: no limit
	Offset    int
}

// ListSessions returns sessions, most recently updated first.
func (s *Store) ListSessions(ctx context.Context, f ListFilter) ([]Session, error) {
	where, args := "1 = 1", []any{}
	if f.Workspace != "" {
		where += " AND workspace = ?"
		args = append(args, filepath.Clean(f.Workspace))
	}
	// Generating and interrupted share a stored status; which one a session
	// is can only be told after reading it, so those filters page in Go.
	pageInGo := f.Status == StatusGenerating || f.Status == StatusInterrupted
	switch {
	case pageInGo:
		where += " AND status = ?"
		args = append(args, string(StatusGenerating))
	case f.Status != "":
		where += " AND status = ?"
		args = append(args, string(f.Status))
	}
	q := `SELECT ` + sessionSelect + ` FROM sessions WHERE ` + where + ` ORDER BY updated_at DESC, id DESC`
	if !pageInGo && (f.Limit > 0 || f.Offset > 0) {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limitOrAll(f.Limit), f.Offset)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("list sessions: %w", err))
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := s.scanSession(rows)
		if err != nil {
			return nil, classify(s.file, fmt.Errorf("list sessions: %w", err))
		}
		if pageInGo && sess.Status != f.Status {
			continue
		}
		out = append(out, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(s.file, fmt.Errorf("list sessions: %w", err))
	}
	if pageInGo {
		out = page(out, f.Offset, f.Limit)
	}
	return out, nil
}

func limitOrAll(n int) int {
	if n <= 0 {
		return -1 // SQLite: no limit
	}
	return n
}

func page[T any](xs []T, offset, limit int) []T {
	if offset >= len(xs) {
		return nil
	}
	xs = xs[offset:]
	if limit > 0 && limit < len(xs) {
		xs = xs[:limit]
	}
	return xs
}

// LatestSession returns the most recently updated session in workspace,
// or an error wrapping ErrNotFound.
func (s *Store) LatestSession(ctx context.Context, workspace string) (*Session, error) {
	list, err := s.ListSessions(ctx, ListFilter{Workspace: workspace, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("latest session in %s: %w", workspace, ErrNotFound)
	}
	return &list[0], nil
}

// DeleteSession deletes the session with its events, checkpoints, file
// snapshots and vectors. Only a person's explicit request may call it
// (seed critical rule #2): nothing in olly deletes sessions on its own.
// Forks of the session keep their events and lose only the link to it.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	op := "delete session " + id
	defer s.forgetHead(id)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rollback(tx)
	// The delete trigger unindexes the session's text, which is only right
	// for text the index covers: index what is pending first, under the
	// same write lock (migrations/0006_fts_cursor.sql).
	if err := indexPendingTx(ctx, tx); err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	images, err := sessionImagesTx(ctx, tx, id)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if err := s.deleteUnusedImagesTx(ctx, tx, images); err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	return classify(s.file, tx.Commit())
}
