package store

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"
	"unsafe"
)

// A batch's events go into the log with multi-row INSERTs: one statement
// for a step's dozen events instead of twelve, each of which paid the
// VDBE's fixed cost (argument binding, a result, statement reset, the
// AUTOINCREMENT counter's update) and a dozen allocations. A batch of up
// to maxExactRows events is one statement of exactly that many rows;
// larger ones are cut into 64s and 16s and the rest. Statements are
// prepared on the writer the first time a batch needs them (insertStmt).
const (
	maxExactRows = 16
	bigChunk     = 64
)

// rowInserter is the committer's: only the committer goroutine uses it.
// Its statements are the writer connection's (writerConn.inserts): they
// are finalized when it closes.
type rowInserter struct {
	rows  []*EventRecord // the batch's events to insert, in order
	types map[string]any // boxType's
	args  []driver.NamedValue
}

// insertSQL is the INSERT of rows events with consecutive ids: the first
// parameter is the first row's id, and the next rows' ids are ?1 + 1,
// ?1 + 2… (one bound id a statement, not a boxed one per event), each
// row's other 8 columns anonymous parameters (the driver reads a name for
// each numbered one: an allocation).
func insertSQL(rows int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO events (id, session_id, seq, parent_seq, turn, type, payload, text, created_at) VALUES `)
	for i := range rows {
		if i == 0 {
			b.WriteString("(?")
		} else {
			b.WriteString(", (?1 + " + strconv.Itoa(i))
		}
		b.WriteString(", ?, ?, ?, ?, ?, ?, ?, ?)")
	}
	return b.String()
}

// chunkFor is the number of rows of the next INSERT for n rows (n > 0).
func chunkFor(n int) int {
	switch {
	case n >= bigChunk:
		return bigChunk
	case n > maxExactRows:
		return maxExactRows
	}
	return n
}

// insertStmt is the INSERT of k rows on wc, prepared the first time a
// batch needs it: it lives as long as the connection (writerConn.Close).
func (wc *writerConn) insertStmt(ctx context.Context, k int) (rawStmt, error) {
	if st := wc.inserts[k]; st != nil {
		return st, nil
	}
	st, err := prepareRaw(ctx, wc, insertSQL(k))
	if err != nil {
		return nil, err
	}
	wc.inserts[k] = st
	return st, nil
}

// insert inserts r.rows, in order, on wc, with ids firstID, firstID+1…
// (ids.go).
func (r *rowInserter) insert(ctx context.Context, wc *writerConn, firstID int64) error {
	recs := r.rows
	for len(recs) > 0 {
		k := chunkFor(len(recs))
		st, err := wc.insertStmt(ctx, k)
		if err != nil {
			return err
		}
		args := appendArgs(r.args[:0], firstID)
		var session any // boxed once for a run of one session's rows
		for i, rec := range recs[:k] {
			if i == 0 || rec.Session != recs[i-1].Session {
				session = rec.Session
			}
			args = appendArgs(args, session, rec.Seq, rec.ParentSeq, int64(rec.Turn), r.boxType(rec.Type),
				payloadText(rec.Payload), nullString(rec.Text), rec.At.UnixMilli())
		}
		firstID += int64(k)
		_, err = st.ExecContext(ctx, args)
		clear(args)
		r.args = args[:0]
		if err != nil {
			return err
		}
		recs = recs[k:]
	}
	return nil
}

// payloadText is the payload as a string without copying it: the driver
// copies it into SQLite's memory while binding, and an AppendAsync
// caller must not change a queued record (nor can Append's, which waits).
func payloadText(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], len(p))
}

// appendArgs appends vals to args as the next ordinals.
func appendArgs(args []driver.NamedValue, vals ...any) []driver.NamedValue {
	for _, v := range vals {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	return args
}

// boxType returns the event type as an argument, boxed once per type:
// a log has a few dozen types, each repeated in most batches.
func (r *rowInserter) boxType(t string) any {
	if v, ok := r.types[t]; ok {
		return v
	}
	if r.types == nil || len(r.types) >= 256 {
		r.types = map[string]any{} // a bound on what a bad caller can make it hold
	}
	var v any = t
	r.types[t] = v
	return v
}

// reset empties the staged rows: a batch starts with none, whatever
// became of the one before (a batch that failed half-way must not leave
// its events to the next).
func (r *rowInserter) reset() {
	clear(r.rows)
	r.rows = r.rows[:0]
}
