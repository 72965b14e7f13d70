package store

import (
	"context"
	"database/sql"
	"fmt"
)

// LastOfType returns the last event of type typ on the session's current
// branch, nil when the branch has none. Only the branch's seqs and the
// events of that type are read — not the branch's payloads, which is what
// reading the whole path would cost (the todo list, todo_read).
func (s *Store) LastOfType(ctx context.Context, session, typ string) (*EventRecord, error) {
	op := "read the last " + typ + " of session " + session
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for every read
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rollback(tx)
	leaf, err := s.leafOf(ctx, tx, session, op)
	if err != nil || leaf == 0 {
		return nil, err
	}
	seqs, err := s.pathSeqs(ctx, tx, session, leaf)
	if err != nil {
		return nil, err
	}
	onPath := make(map[int64]bool, len(seqs))
	for _, q := range seqs {
		onPath[q] = true
	}
	// Newest first: the first on the branch is the answer, usually the
	// first row (other branches' events are skipped).
	rows, err := tx.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE session_id = ? AND type = ? AND seq <= ? ORDER BY seq DESC`,
		session, typ, leaf)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEvent(rows, session)
		if err != nil {
			return nil, classify(s.file, fmt.Errorf("%s: %w", op, err))
		}
		if onPath[e.Seq] {
			return &e, nil
		}
	}
	return nil, classifyOrNil(s.file, op, rows.Err())
}

func classifyOrNil(file, op string, err error) error {
	if err == nil {
		return nil
	}
	return classify(file, fmt.Errorf("%s: %w", op, err))
}
