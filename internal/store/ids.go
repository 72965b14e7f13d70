package store

import (
	"context"
	"errors"
	"math"
)

// The committer gives its events their ids itself, from a block it
// reserved in sqlite_sequence, instead of leaving them to AUTOINCREMENT:
// an AUTOINCREMENT insert rewrites the table's sqlite_sequence row at
// every statement (one WAL frame of an agent step's commit), while an
// insert whose ids are all at most the stored counter leaves the row
// alone (SQLite skips the write when the counter did not grow).
//
// What AUTOINCREMENT promised still holds: each id is above every id
// used before it, also by events deleted since — so ids are never reused
// and grow in commit order, which the full-text and embedding cursors rely
// on (a deleted session's ids may be at or below a cursor). The block is
// reserved by raising the counter in the batch's transaction, and every
// other inserter (an AUTOINCREMENT insert such as Fork's copies, another
// process's block) starts above the counter and raises it. A batch takes
// ids from the block only while the counter, read in its transaction,
// still ends exactly at the block (nobody reserved or inserted above it
// since) and the block's next id is above every stored id; otherwise it
// reserves a new block above both. Ids left in a block when the process
// ends are never used: ids have gaps, as they had after deleted sessions.

// idBlock is how many ids a reservation takes: one write of the counter
// per ~85 agent steps of 12 events.
const idBlock = 1024

// idRange is the committer's reserved ids: next…end, none when next > end.
// Only the committer uses it.
type idRange struct{ next, end int64 }

// takeIDs returns the first of n consecutive ids for the batch's events,
// reserving a new block first unless the current one still fits: its next
// id above maxID (the largest stored id), n ids left, and the stored
// counter seq (-1: no row yet) still at its end. maxID and seq are read in
// the batch's transaction (commitHeadSQL).
func (s *Store) takeIDs(ctx context.Context, rc *rawConn, n, maxID, seq int64) (int64, error) {
	r := &s.idr
	if r.next <= maxID || r.next+n-1 > r.end || seq != r.end {
		base := max(seq, maxID)
		if base > math.MaxInt64-max(idBlock, n) {
			// AUTOINCREMENT fails here too (SQLITE_FULL); wrapping would
			// give ids below every stored one.
			return 0, errIDsExhausted
		}
		end := base + max(idBlock, n)
		st := rc.reserveIDs
		if seq < 0 {
			st = rc.firstIDs
		}
		if err := rc.exec(ctx, st, end); err != nil {
			return 0, err
		}
		*r = idRange{next: base + 1, end: end}
	}
	first := r.next
	r.next += n
	return first, nil
}

// errIDsExhausted: the counter is within a block of the largest id
// SQLite can store (only a hand-edited or damaged file gets there).
var errIDsExhausted = errors.New("database full: event ids are exhausted (the events' sqlite_sequence counter is at the largest id); export the sessions you need into a new database")

// dropIDs forgets the block after a batch that failed: its reservation
// may have been rolled back with it.
func (s *Store) dropIDs() { s.idr = idRange{} }
