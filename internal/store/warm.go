package store

import (
	"context"
	"runtime"
)

// The committer prepares its statements the first time a batch needs
// them (rawconn.go, insertrows.go): the multi-row INSERT of each batch
// size on its first batch of that size. A run's first steps meet new
// sizes, and SQLite parsing and planning the statement inside the commit
// the agent waits for (Turn.Sync) was much of why a run's first
// iterations were its slowest (docs/performance.md, "First tool steps").
// Warm moves that work to a moment the committer would be idle anyway.

// Warm asks the committer to prepare, while nothing is queued, the append
// statements it has not prepared yet: begin, commit and the head read,
// and the INSERT of every batch size up to maxExactRows. It returns at
// once; once every statement is prepared it does nothing. Nothing is written: the database, its
// files and what readers see are unchanged, and a commit due meanwhile
// waits for at most the one statement being prepared.
func (s *Store) Warm() {
	if s.warmed.Load() {
		return
	}
	select {
	case s.warmCh <- struct{}{}:
	default: // already asked
	}
}

// warmStatements prepares the append statements not prepared yet, one at
// a time, on the committer's goroutine. Before each it asks busy, which
// is true when something queued must be committed now (an Append or a
// Flush waits, AppendAsync events were queued since the commit delay was
// last armed, or that delay is over: events waiting out the delay do not
// stop it), and stops there, as when the store
// is closing; it reports whether some are left (the committer calls it
// again after the commit). Between statements it yields, so that a
// goroutine made runnable meanwhile — with one P, the agent whose model
// reply arrived — does not wait for more than one statement. A failure is
// left to the append that needs the statement, which prepares it again
// and reports the error.
func (s *Store) warmStatements(busy func() bool) (more bool) {
	ctx := context.Background()
	for k := 1; k <= maxExactRows; k++ {
		if s.closed() || busy() {
			return true
		}
		done := false
		err := s.withRaw(ctx, func(wc *writerConn) error {
			if wc.inserts[k] != nil {
				done = true // prepared by a batch (or an earlier call)
				return nil
			}
			_, err := wc.insertStmt(ctx, k)
			return err
		})
		if err != nil {
			return false
		}
		if !done {
			runtime.Gosched()
		}
	}
	s.warmed.Store(true)
	return false
}

// queued reports whether appends wait for the committer.
func (s *Store) queued() bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return len(s.queue) > 0
}
