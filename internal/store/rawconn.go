package store

// The committer drives the writer's driver connection itself instead of
// going through database/sql's transactions: a Tx started a goroutine to
// watch its context and took the pool's locks at every step, and the
// driver's BEGIN and COMMIT were parsed from their text again at every
// commit (about 7% of olly's CPU was SQLite's parser). Now a commit is
// three prepared statements kept for the connection's life — BEGIN
// IMMEDIATE, the batch's statements, COMMIT — run on the connection
// database/sql lends for the batch (sql.Conn.Raw), with no goroutine and
// nothing parsed.

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// rawStmt is a driver statement the committer runs directly.
type rawStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// rawConn holds the committer's statements on one writer connection,
// which owns them (writerConn): they are finalized when it closes. Only
// the committer uses it.
type rawConn struct {
	begin, commit, rollback rawStmt
	// readHead reads a session's leaf, last seq, updated_at and
	// leaf_at_end (readHeadSQL); moveLeaf, moveLeafOnly and moveUpdated
	// record the batch's end when the row does not say it already
	// (moveLeafTo).
	readHead, moveLeaf, moveLeafOnly, moveUpdated rawStmt
	// reserveIDs and firstIDs raise the events' id counter (ids.go).
	reserveIDs, firstIDs rawStmt
	args                 []driver.NamedValue
}

// withRaw runs f on the writer's driver connection, with the committer's
// statements prepared on it. database/sql lends the connection for the
// call (the writer has one: other writes wait, as they waited for a Tx).
// Should database/sql have replaced the connection (it discards one that
// reports itself unusable, whose Close finalized its statements), they
// are prepared on the new one.
func (s *Store) withRaw(ctx context.Context, f func(wc *writerConn) error) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		wc, ok := dc.(*writerConn)
		if !ok {
			return fmt.Errorf("writer connection %T was not opened by the store", dc)
		}
		if err := wc.raw.prepare(ctx, wc); err != nil {
			return fmt.Errorf("prepare the append statements: %w", err)
		}
		return f(wc)
	})
}

// prepare prepares the statements on wc the first time, and again after
// an attempt that failed part-way (it finalized what it had prepared).
func (rc *rawConn) prepare(ctx context.Context, wc *writerConn) error {
	if rc.begin != nil {
		return nil
	}
	var err error
	prep := func(q string) rawStmt {
		if err != nil {
			return nil
		}
		var st rawStmt
		st, err = prepareRaw(ctx, wc, q)
		return st
	}
	rc.begin = prep("BEGIN IMMEDIATE") // the write lock up front: no deadlocking upgrade
	rc.commit = prep("COMMIT")
	rc.rollback = prep("ROLLBACK")
	rc.readHead = prep(commitHeadSQL)
	setFlag := `UPDATE sessions SET leaf_seq = ` + strconv.FormatInt(staleLeaf, 10) + `, leaf_at_end = 1`
	rc.moveLeaf = prep(setFlag + `, updated_at = ? WHERE id = ?`)
	rc.moveLeafOnly = prep(setFlag + ` WHERE id = ?`)
	rc.moveUpdated = prep(`UPDATE sessions SET updated_at = ? WHERE id = ?`)
	rc.reserveIDs = prep(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'`)
	rc.firstIDs = prep(`INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)`)
	if err != nil {
		rc.close()
	}
	return err
}

// prepareRaw prepares q on the driver connection dc.
func prepareRaw(ctx context.Context, dc any, q string) (rawStmt, error) {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("driver connection %T cannot prepare with a context", dc)
	}
	st, err := pc.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	rs, ok := st.(rawStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("driver statement %T lacks ExecContext or QueryContext", st)
	}
	return rs, nil
}

// close finalizes the statements (writerConn.Close, and a failed prepare).
func (rc *rawConn) close() {
	for _, st := range []rawStmt{rc.begin, rc.commit, rc.rollback, rc.readHead, rc.moveLeaf, rc.moveLeafOnly, rc.moveUpdated,
		rc.reserveIDs, rc.firstIDs} {
		if st != nil {
			st.Close()
		}
	}
	*rc = rawConn{}
}

// exec runs st with args (nil: none).
func (rc *rawConn) exec(ctx context.Context, st rawStmt, args ...any) error {
	_, err := st.ExecContext(ctx, rc.named(args))
	clear(rc.args)
	return err
}

// named converts args to the driver's form, in a buffer reused by every
// statement of the committer.
func (rc *rawConn) named(args []any) []driver.NamedValue {
	rc.args = appendArgs(rc.args[:0], args...)
	return rc.args
}

// queryInts runs st with args and scans the first row's columns, all
// integers, into dest. No row is io.EOF.
func (rc *rawConn) queryInts(ctx context.Context, st rawStmt, dest []*int64, args ...any) error {
	rows, err := st.QueryContext(ctx, rc.named(args))
	clear(rc.args)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(dest))
	if err := rows.Next(vals); err != nil {
		return err
	}
	for i, v := range vals {
		n, ok := v.(int64)
		if !ok {
			return fmt.Errorf("column %d: %T, want an integer", i, v)
		}
		*dest[i] = n
	}
	return nil
}

// readHeadRaw reads a session's head inside the committer's transaction.
func (rc *rawConn) readHeadRaw(ctx context.Context, session string) (*head, error) {
	h := &head{}
	var atEnd int64
	err := rc.queryInts(ctx, rc.readHead, []*int64{&h.leaf, &h.last, &h.updated, &atEnd, &h.maxID, &h.seq}, session)
	if errors.Is(err, io.EOF) {
		return nil, ErrNotFound
	}
	if h.atEnd = atEnd != 0; h.atEnd {
		h.leaf = h.last // leaf_seq is not kept up to date (leafExpr)
	}
	return h, err
}

// inTx runs f between BEGIN IMMEDIATE and COMMIT. When f or the COMMIT
// fails, the transaction is rolled back: nothing of it is stored.
func (rc *rawConn) inTx(ctx context.Context, f func() error) error {
	if err := rc.exec(ctx, rc.begin); err != nil {
		rc.abort(ctx)
		return err
	}
	err := f()
	if err == nil {
		err = rc.exec(ctx, rc.commit)
	}
	if err != nil {
		rc.abort(ctx)
	}
	return err
}

// abort rolls back whatever transaction is open. A statement that failed
// may have ended it already (SQLite rolls back on some errors), and a
// BEGIN that failed opened none: the ROLLBACK then fails, harmlessly.
func (rc *rawConn) abort(ctx context.Context) {
	_ = rc.exec(ctx, rc.rollback)
}
