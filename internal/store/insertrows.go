package store

import (
	"context"
	"database/sql"
	"strings"
)

// A batch's events go into the log with multi-row INSERTs: one statement
// for a step's dozen events instead of twelve, each of which paid
// database/sql's and the VDBE's fixed cost (argument conversion, a result,
// statement reset) and a dozen allocations. Statements exist for a few
// row counts, prepared on the writer the first time a batch needs them;
// a batch is inserted as the largest that fit (12 events: 8 + 4).
var insertChunks = [...]int{64, 16, 8, 4, 2, 1}

// rowInserter is the committer's: only the committer goroutine uses it.
type rowInserter struct {
	stmts map[int]*sql.Stmt // by row count
	rows  []*EventRecord    // the batch's events to insert, in order
	args  []any
}

func insertSQL(rows int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO events (session_id, seq, parent_seq, turn, type, payload, text, created_at) VALUES `)
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
	}
	return b.String()
}

// chunkFor is the number of rows of the next INSERT for n rows (n > 0).
func chunkFor(n int) int {
	for _, k := range insertChunks {
		if k <= n {
			return k
		}
	}
	return 1
}

// prepareInserts prepares the statements inserting n rows needs. It runs
// outside the batch's transaction: the writer has one connection, which
// the transaction holds.
func (s *Store) prepareInserts(ctx context.Context, n int) error {
	if s.ins.stmts == nil {
		s.ins.stmts = map[int]*sql.Stmt{}
	}
	for n > 0 {
		k := chunkFor(n)
		if s.ins.stmts[k] == nil {
			st, err := s.w.PrepareContext(ctx, insertSQL(k))
			if err != nil {
				return err
			}
			s.ins.stmts[k] = st
		}
		n -= k
	}
	return nil
}

// insertRows inserts s.ins.rows, in order, and empties it.
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx) error {
	recs := s.ins.rows
	defer func() {
		clear(s.ins.rows)
		s.ins.rows = s.ins.rows[:0]
	}()
	for len(recs) > 0 {
		k := chunkFor(len(recs))
		args := s.ins.args[:0]
		for _, rec := range recs[:k] {
			args = append(args, rec.Session, rec.Seq, rec.ParentSeq, rec.Turn, rec.Type,
				string(rec.Payload), nullString(rec.Text), rec.At.UnixMilli())
		}
		_, err := tx.StmtContext(ctx, s.ins.stmts[k]).ExecContext(ctx, args...)
		clear(args)
		s.ins.args = args[:0]
		if err != nil {
			return err
		}
		recs = recs[k:]
	}
	return nil
}

func (r *rowInserter) close() {
	for _, st := range r.stmts {
		st.Close()
	}
}
