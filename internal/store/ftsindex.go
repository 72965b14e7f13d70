package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Full-text indexing runs behind the append path, on the committer
// goroutine (the one writer connection), in batches: FTS5 writes a new
// segment per statement, and indexing each event in its own transaction
// cost two thirds of an append. The index may lag the log by up to
// ftsDelay; Search indexes everything pending before it looks, so a
// search always sees every event appended before it, from any process.
const (
	// ftsDelay is how long appended text may wait before it is indexed
	// when nobody searches. Nothing but a search reads the index, and it
	// catches it up first, so the lag is invisible; a longer one means
	// fewer, larger index commits (at 50 ms a fast agent turn paid one
	// every ten steps).
	ftsDelay = time.Second
	// ftsBacklog indexes at once when this many events are waiting.
	ftsBacklog = 2048
)

// ftsReq asks the committer to bring the index up to date.
type ftsReq struct{ done chan error }

// indexPending adds every event after the index's cursor to the index, in
// one transaction with the cursor's update, so a crash leaves both as they
// were.
func (s *Store) indexPending(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer rollback(tx)
	if err := indexPendingTx(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// indexPendingTx indexes the pending events inside tx.
func indexPendingTx(ctx context.Context, tx *sql.Tx) error {
	var cursor, newest int64
	if err := tx.QueryRowContext(ctx, `SELECT last_event_id FROM fts_state WHERE id = 1`).Scan(&cursor); err != nil {
		return fmt.Errorf("read the search index cursor: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM events`).Scan(&newest); err != nil {
		return err
	}
	if newest <= cursor {
		return nil
	}
	if _, err := tx.ExecContext(ctx, indexEventsSQL, cursor+1, newest); err != nil {
		return fmt.Errorf("index events %d–%d: %w", cursor+1, newest, err)
	}
	_, err := tx.ExecContext(ctx, `UPDATE fts_state SET last_event_id = ? WHERE id = 1`, newest)
	return err
}

// flushFTS brings the full-text index up to date before a search.
func (s *Store) flushFTS(ctx context.Context) error {
	req := &ftsReq{done: make(chan error, 1)}
	select {
	case s.ftsCh <- req:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.quit:
		return ErrClosed
	}
	select {
	case err := <-req.done:
		return classify(s.file, err)
	case <-ctx.Done():
		return ctx.Err()
	}
}
