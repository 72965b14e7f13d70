package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// eventCols are an event's columns but its session, which every query
// already knows, and its search text, which the payload carries anyway:
// replaying a long session reads a third fewer bytes.
const eventCols = `seq, parent_seq, turn, type, payload, created_at`

func scanEvent(row scanner, session string) (EventRecord, error) {
	var (
		e       EventRecord
		payload []byte
		at      int64
	)
	if err := row.Scan(&e.Seq, &e.ParentSeq, &e.Turn, &e.Type, &payload, &at); err != nil {
		return e, err
	}
	e.Session, e.Payload, e.At = session, payload, fromMillis(at)
	return e, nil
}

// queryEvents runs a query for events of session, whose first argument
// must be the session id.
// sizeHint, when above zero, is how many rows the query is expected to
// return (at most), so the result is allocated once.
func (s *Store) queryEvents(ctx context.Context, q querier, sizeHint int, op, query string, args ...any) ([]EventRecord, error) {
	session, _ := args[0].(string)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rows.Close()
	var out []EventRecord
	if sizeHint > 0 {
		out = make([]EventRecord, 0, min(sizeHint, maxSizeHint))
	}
	dec := newEventDecoder(session)
	for rows.Next() {
		e, err := dec.decode(rows)
		if err != nil {
			return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	return out, nil
}

// maxSizeHint bounds the rows queryEvents allocates for up front.
const maxSizeHint = 1 << 20

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// Events returns the session's events with seq > afterSeq in log order, at
// most limit of them (0: all). A reconnecting client passes the last seq
// it saw. Every branch is included: this is the log, not a path.
//
// limit is a bound, not the expected count (a poll passes thousands and
// gets a few rows): the result grows as rows come, with no size hint.
func (s *Store) Events(ctx context.Context, session string, afterSeq int64, limit int) ([]EventRecord, error) {
	return s.queryEvents(ctx, s.r, 0, "read events of session "+session,
		`SELECT `+eventCols+` FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		session, afterSeq, limitOrAll(limit))
}

// Event returns one event, or an error wrapping ErrNotFound.
func (s *Store) Event(ctx context.Context, session string, seq int64) (*EventRecord, error) {
	e, err := scanEvent(s.r.QueryRowContext(ctx,
		`SELECT `+eventCols+` FROM events WHERE session_id = ? AND seq = ?`, session, seq), session)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("event %d of session %s: %w", seq, session, ErrNotFound)
	}
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("read event %d of session %s: %w", seq, session, err))
	}
	return &e, nil
}

// Path returns the events from the root of the session's tree down to
// leafSeq, in order: the branch ending there. leafSeq 0 means the
// session's current leaf. A session with no events has an empty path.
func (s *Store) Path(ctx context.Context, session string, leafSeq int64) ([]EventRecord, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for both reads
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("read path of session %s: %w", session, err))
	}
	defer rollback(tx)
	return s.treePath(ctx, tx, session, leafSeq)
}

// leafOf returns the session's current leaf seq (0 while it has no
// events), ErrNotFound when there is no such session; op names the read
// in errors.
func (s *Store) leafOf(ctx context.Context, q querier, session, op string) (int64, error) {
	var leaf int64
	err := q.QueryRowContext(ctx, `SELECT `+leafExpr+` FROM sessions WHERE id = ?`, session).Scan(&leaf)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if err != nil {
		return 0, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	return leaf, nil
}

func (s *Store) treePath(ctx context.Context, q querier, session string, leafSeq int64) ([]EventRecord, error) {
	op := "read path of session " + session
	if leafSeq == 0 {
		var err error
		if leafSeq, err = s.leafOf(ctx, q, session, op); err != nil || leafSeq == 0 {
			return nil, err
		}
	}
	// One range scan of every event up to the leaf, then a walk up the
	// parent links in memory: cheaper than reading the tree first and the
	// rows after, since a path is usually most of its session.
	// Seqs are 1…last without gaps, so there are at most leafSeq rows.
	all, err := s.queryEvents(ctx, q, int(min(leafSeq, maxSizeHint)), op,
		`SELECT `+eventCols+` FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq`, session, leafSeq)
	if err != nil {
		return nil, err
	}
	idx, err := walkPath(len(all), func(i int) (int64, int64) { return all[i].Seq, all[i].ParentSeq }, leafSeq)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if len(idx) == len(all) {
		return all, nil
	}
	path := make([]EventRecord, len(idx))
	for i, j := range idx {
		path[i] = all[j]
	}
	return path, nil
}

// walkPath returns the indexes, root first, of the path ending at leafSeq
// among n events sorted by seq, where at(i) gives event i's seq and parent.
func walkPath(n int, at func(int) (seq, parent int64), leafSeq int64) ([]int, error) {
	if n == 0 {
		return nil, fmt.Errorf("event %d: %w", leafSeq, ErrNotFound)
	}
	if seq, _ := at(n - 1); seq != leafSeq {
		return nil, fmt.Errorf("event %d: %w", leafSeq, ErrNotFound)
	}
	var path []int
	for i := n - 1; ; {
		path = append(path, i)
		seq, p := at(i)
		if p == 0 {
			break
		}
		// Parents precede children, so the search is within [0, i).
		j := sort.Search(i, func(k int) bool { s, _ := at(k); return s >= p })
		if j == i {
			return nil, fmt.Errorf("event %d has missing parent %d", seq, p)
		}
		if s, _ := at(j); s != p {
			return nil, fmt.Errorf("event %d has missing parent %d", seq, p)
		}
		i = j
	}
	slices.Reverse(path)
	return path, nil
}

// pathSeqs returns the seqs of the path ending at leafSeq, reading only
// (seq, parent_seq) pairs.
func (s *Store) pathSeqs(ctx context.Context, q querier, session string, leafSeq int64) ([]int64, error) {
	op := "read path of session " + session
	rows, err := q.QueryContext(ctx,
		`SELECT seq, parent_seq FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq`, session, leafSeq)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rows.Close()
	var pairs [][2]int64
	for rows.Next() {
		var p [2]int64
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
		}
		pairs = append(pairs, p)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	idx, err := walkPath(len(pairs), func(i int) (int64, int64) { return pairs[i][0], pairs[i][1] }, leafSeq)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	seqs := make([]int64, len(idx))
	for i, j := range idx {
		seqs[i] = pairs[j][0]
	}
	return seqs, nil
}

func seqList(seqs []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range seqs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// SetLeaf moves the session's current leaf to seq, an event of the
// session, or to 0 (the next event starts a new root). The next Append
// then starts a new branch from there; the old branch stays in the log.
// To branch from a user message, set the leaf to that message's parent and
// append the edited message.
func (s *Store) SetLeaf(ctx context.Context, session string, seq int64) error {
	op := fmt.Sprintf("set leaf of session %s to %d", session, seq)
	// Events queued before the move go where they were placed.
	if err := s.Flush(ctx); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	// The next append reads the moved leaf, not this process's record of
	// its last commit.
	defer s.forgetHead(session)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rollback(tx)
	if seq != 0 {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM events WHERE session_id = ? AND seq = ?`, session, seq).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s: no such event: %w", op, ErrNotFound)
		}
		if err != nil {
			return classify(s.file, fmt.Errorf("%s: %w", op, err))
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET leaf_seq = ?, leaf_at_end = 0, updated_at = ? WHERE id = ?`, seq, s.now(), session)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: no such session: %w", op, ErrNotFound)
	}
	return classify(s.file, tx.Commit())
}

// ForkEmpty is the atSeq of a Fork that copies no events.
const ForkEmpty int64 = -1

// Fork creates a new session from the path of session ending at atSeq (0:
// its current leaf). The copies keep their seq numbers, parents, turns,
// payloads and times, so references between events stay valid; the fork's
// seqs may therefore have gaps where other branches were. The new session
// copies the settings of the old one, records where it came from, and has
// its leaf at the end of the copied path. newID "" gets a NewID. A negative
// atSeq (ForkEmpty) copies no events: a fork cut before the session's first
// prompt, which records its parent (forkedFromSeq 0) and starts untitled.
func (s *Store) Fork(ctx context.Context, session string, atSeq int64, newID string) (*Session, error) {
	if newID == "" {
		newID = NewID(s.opts.Now())
	}
	op := fmt.Sprintf("fork session %s at %d", session, atSeq)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rollback(tx)
	src, err := s.session(ctx, tx, session)
	if err != nil {
		return nil, err
	}
	if atSeq == 0 {
		atSeq = src.LeafSeq
	}
	empty := atSeq < 0
	if empty {
		atSeq = 0
	}
	var seqs []int64
	if atSeq > 0 {
		if seqs, err = s.pathSeqs(ctx, tx, session, atSeq); err != nil {
			return nil, err
		}
	}
	now := s.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, workspace, mode, model,
		explorer_model, status, auto_approve_commands, auto_approve_sensitive_edits,
		sensitive_patterns, session_memory, parent_session_id, forked_from_seq, leaf_seq,
		created_at, updated_at)
		SELECT ?, CASE WHEN ? THEN '' ELSE title END, workspace, mode, model, explorer_model, 'idle',
		auto_approve_commands, auto_approve_sensitive_edits, sensitive_patterns,
		CASE WHEN ? THEN NULL ELSE session_memory END, id, ?, ?, ?, ?
		FROM sessions WHERE id = ?`, newID, empty, empty, atSeq, atSeq, now, now, session); err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	if len(seqs) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO events
			(session_id, seq, parent_seq, turn, type, payload, text, created_at)
			SELECT ?, seq, parent_seq, turn, type, payload, text, created_at FROM events
			WHERE session_id = ? AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq`,
			newID, session, seqList(seqs)); err != nil {
			return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
		}
		// The copies get new ids after the index's cursor: the committer
		// indexes them with the next batch, and Search flushes first.
	}
	if err := tx.Commit(); err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	s.notifyWatchers()
	return s.Session(ctx, newID)
}
