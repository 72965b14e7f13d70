package store

// The committer: one goroutine owns the writer connection for appends,
// takes what Append and AppendAsync queued (append.go) and commits it in
// one transaction per batch (group commit), then answers each request in
// order.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// commitLoop owns the writer for appends: it takes what is queued, lets
// appenders that are about to queue do so, and commits it all together.
// Events queued with AppendAsync wait up to the commit delay for more to
// join them, unless something queued must not wait (mayWait).
func (s *Store) commitLoop() {
	defer s.wg.Done()
	var batch []*appendReq
	// Full-text indexing waits until appends pause, a backlog builds up, or
	// a search asks (ftsindex.go).
	var (
		pending int
		warming bool // Warm asked, statements left to prepare
		timer   = newIdleTimer()
		delay   = newIdleTimer() // the commit delay of queued AppendAsync events
	)
	defer timer.Stop()
	defer delay.Stop()
	index := func() error {
		pending = 0
		timer.disarm()
		return s.indexPending(context.Background())
	}
	// commitQueued commits what is queued; unless all, what may wait
	// (and, with now, what arrives during the first commit) waits for
	// the delay.
	commitQueued := func(now, all bool) {
		for {
			if !now && !all && s.mayWait() {
				delay.arm(s.opts.CommitDelay) // unless it runs already
				break
			}
			now = false
			delay.disarm()
			batch = s.gather(batch[:0])
			if len(batch) == 0 {
				break
			}
			pending += s.commitBatch(batch)
			clear(batch) // let the records go
		}
		switch {
		case pending >= ftsBacklog:
			_ = index()
		case pending > 0:
			timer.arm(ftsDelay)
		}
	}
	for {
		select {
		case <-s.quit:
			// Close refuses new appends first; what was queued before is
			// committed: its callers are waiting for the outcome.
			commitQueued(true, true)
			if pending > 0 {
				_ = index() // best effort; the next Open catches up anyway
			}
			return
		case <-s.wake:
			commitQueued(false, false)
		case <-delay.C:
			delay.armed = false
			commitQueued(true, false)
		case <-timer.C:
			timer.armed = false
			_ = index() // an error here surfaces at the next search
		case req := <-s.ftsCh:
			req.done <- index()
		case <-s.warmCh:
			warming = true
		}
		if warming { // until something queued must be committed (warm.go)
			warming = s.warmStatements(func() bool {
				return delay.due() || (s.queued() && (!delay.armed || !s.mayWait()))
			})
		}
	}
}

// Commits reports how many append transactions this Store committed and
// how many events they stored: for benchmarks (events per commit).
func (s *Store) Commits() (commits, events int64) {
	return s.commits.Load(), s.appended.Load()
}

// mayWait reports whether what is queued may wait for more to join its
// commit: only AppendAsync events, fewer than a batch, and a commit delay.
// With nothing queued there is nothing to commit either.
func (s *Store) mayWait() bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.opts.CommitDelay > 0 && !s.qurgent && len(s.queue) > 0 && len(s.queue) < maxBatch
}

// idleTimer is a stopped timer that knows whether it is armed.
type idleTimer struct {
	*time.Timer
	armed bool
	at    time.Time // when it fires, if armed
}

func newIdleTimer() *idleTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &idleTimer{Timer: t}
}

// arm starts the timer unless it is running already.
func (t *idleTimer) arm(d time.Duration) {
	if !t.armed {
		t.Reset(d)
		t.armed, t.at = true, time.Now().Add(d)
	}
}

// due reports whether it is armed and its time has come (its channel
// may not have been read yet).
func (t *idleTimer) due() bool {
	return t.armed && !time.Now().Before(t.at)
}

// disarm stops it.
func (t *idleTimer) disarm() {
	if t.armed {
		t.Stop()
		t.armed = false
	}
}

// gather moves the queued requests into batch. Appenders woken by the
// previous commit are runnable but may not have queued yet; yielding lets
// them, so concurrent appenders share commits instead of alternating
// between a batch of one and a batch of the rest.
func (s *Store) gather(batch []*appendReq) []*appendReq {
	for len(batch) < maxBatch {
		n := len(batch)
		s.qmu.Lock()
		k := min(len(s.queue), maxBatch-n)
		batch = append(batch, s.queue[:k]...)
		rest := copy(s.queue, s.queue[k:])
		clear(s.queue[rest:])
		s.queue = s.queue[:rest]
		if rest == 0 {
			s.qurgent = false
		}
		s.qmu.Unlock()
		if len(batch) == n {
			return batch // nobody came while we yielded
		}
		runtime.Gosched()
	}
	return batch
}

// commitBatch commits the batch, answers its requests in order, and
// returns how many stored events carry searchable text.
func (s *Store) commitBatch(batch []*appendReq) int {
	err := classify(s.file, s.writeBatch(batch))
	s.commits.Add(1) // read by benchmarks
	stored, searchable, size := false, 0, 0
	now := time.Now()
	s.qmu.Lock()
	s.pruneKnown(now)
	for _, r := range batch {
		if r.rec == nil {
			continue
		}
		if r.err == nil && err != nil {
			r.err = fmt.Errorf("append %s to session %s: %w", r.rec.Type, r.rec.Session, err)
		}
		if h := s.qheads[r.rec.Session]; h != nil {
			if h.queued--; h.queued == 0 {
				delete(s.qheads, r.rec.Session) // the next append starts from known or the stored head
			}
		}
		if r.err != nil {
			delete(s.known, r.rec.Session) // where the log ends is read again
			if !r.pinned {
				r.rec.Seq, r.rec.ParentSeq, r.rec.At = 0, 0, time.Time{}
			}
			continue
		}
		// The session's log ends here as far as this process knows: the
		// last of its events in the batch decides.
		s.known[r.rec.Session] = knownHead{last: r.rec.Seq, at: now}
		stored = true
		size += len(r.rec.Payload) + len(r.rec.Text) + 64
		s.appended.Add(1)
		if r.rec.Text != "" {
			searchable++
		}
	}
	s.qmu.Unlock()
	for _, r := range batch {
		r.done(r.err)
	}
	if stored {
		s.walWrote(size)
		s.notifyWatchers()
	}
	return searchable
}

// pruneKnown drops the known heads too old to be used, once there are
// more than a few: a process appending to many sessions over its life
// keeps only the recent ones. s.qmu is held.
func (s *Store) pruneKnown(now time.Time) {
	if len(s.known) <= 64 {
		return
	}
	for id, k := range s.known {
		if now.Sub(k.at) >= s.headTrust {
			delete(s.known, id)
		}
	}
}

// head is a session's log position inside one batch.
type head struct {
	last, leaf int64
	at         int64 // the time of the batch's last event of the session
	updated    int64 // the session's stored updated_at
	atEnd      bool  // the stored row says the leaf is the last event (leaf_at_end)
	dirty      bool
	maxID, seq int64 // the largest event id and the id counter (commitHeadSQL)
}

// updatedGrain: a commit moves a session's updated_at to the time of its
// last event only when that is at least this much later than the stored
// value (or earlier: the clock went back). The column is in two indexes,
// so moving it writes three pages instead of one; a session's updated_at
// therefore trails its last event by less than this, also once it is idle
// (nothing moves it at the end of a turn).
const updatedGrain = 1000 // milliseconds

// staleLeaf is what leaf_seq holds while leaf_at_end is set: no event
// has that seq. Readers of this schema never read it (leafExpr); an olly
// from before schema 10 that was already running when the file was
// upgraded does, and then fails to find that event — its resume, Path
// and Fork fail instead of working from the leaf of the flag's first
// commit, which later appends left behind — and its append fails the
// events' parent_seq check, or the guard trigger at its leaf write.
const staleLeaf = int64(1) << 62

// moveLeafTo records the session's new leaf, which is its last event
// (an append always ends there): the row's leaf_at_end, once, and its
// updated_at when that moved enough (updatedGrain). A row that says so
// already, with an updated_at that stays, is left alone: no statement,
// no page. Once the flag is set, leaf_seq is not written (the migration's
// guard refuses an older olly's writes of it); setting the flag stores
// staleLeaf there.
func (rc *rawConn) moveLeafTo(ctx context.Context, id string, h *head) error {
	d := h.at - h.updated
	moved := d < 0 || d >= updatedGrain
	switch {
	case !h.atEnd && moved:
		return rc.exec(ctx, rc.moveLeaf, h.at, id)
	case !h.atEnd:
		return rc.exec(ctx, rc.moveLeafOnly, id)
	case moved:
		return rc.exec(ctx, rc.moveUpdated, h.at, id)
	}
	return nil
}

// writeBatch stores the batch's events in one transaction, in order. Each
// goes where it was placed when queued if the stored log still ends
// there; otherwise (another process appended to the session meanwhile) an
// unpinned event moves to the log's end and a pinned one fails with
// ErrConflict. A record for a missing session fails alone (r.err); any
// other error fails the whole batch, and nothing of it is stored.
func (s *Store) writeBatch(batch []*appendReq) error {
	if countRecords(batch) == 0 {
		return nil
	}
	// Not the callers' contexts: one caller giving up must not abort the
	// others' commit.
	ctx := context.Background()
	defer s.ins.reset() // a batch that fails half-way leaves no rows to the next
	err := s.withRaw(ctx, func(wc *writerConn) error {
		return wc.raw.inTx(ctx, func() error { return s.writeRows(ctx, wc, batch) })
	})
	if err != nil {
		s.dropIDs()
	}
	return err
}

// writeRows places the batch's events, inserts them and moves the
// sessions' leaves, inside the batch's transaction.
func (s *Store) writeRows(ctx context.Context, wc *writerConn, batch []*appendReq) error {
	rc := &wc.raw
	heads := make(map[string]*head, 1)
	var anyHead *head // every head read sees the same ids (no row is inserted before all are read)
	for _, r := range batch {
		rec := r.rec
		if rec == nil {
			continue
		}
		prev := r.prev
		r.prev = nil
		if r.pinned && prev != nil && prev.err != nil {
			r.err = fmt.Errorf("append %s to session %s at %d: not stored after the event before it failed: %w",
				rec.Type, rec.Session, rec.Seq, prev.err)
			continue
		}
		h, ok := heads[rec.Session]
		if !ok {
			var err error
			h, err = rc.readHeadRaw(ctx, rec.Session)
			if errors.Is(err, ErrNotFound) {
				r.err = fmt.Errorf("append %s to session %s: %w", rec.Type, rec.Session, ErrNotFound)
				continue
			}
			if err != nil {
				return err
			}
			heads[rec.Session] = h
			anyHead = h
		}
		if rec.Seq != h.last+1 || rec.ParentSeq != h.leaf {
			if r.pinned {
				r.err = fmt.Errorf("append %s to session %s at %d: %w", rec.Type, rec.Session, rec.Seq, ErrConflict)
				continue
			}
			rec.Seq, rec.ParentSeq = h.last+1, h.leaf
		}
		s.ins.rows = append(s.ins.rows, rec)
		h.last, h.leaf, h.at, h.dirty = rec.Seq, rec.Seq, rec.At.UnixMilli(), true
	}
	// Inserted after all are placed: a session's head is read before any
	// of its rows, as when each was inserted in turn.
	if n := int64(len(s.ins.rows)); n > 0 {
		first, err := s.takeIDs(ctx, rc, n, anyHead.maxID, anyHead.seq)
		if err != nil {
			return err
		}
		if err := s.ins.insert(ctx, wc, first); err != nil {
			return err
		}
	}
	for id, h := range heads {
		if !h.dirty {
			continue
		}
		if err := rc.moveLeafTo(ctx, id, h); err != nil {
			return err
		}
	}
	return nil
}

func countRecords(batch []*appendReq) int {
	n := 0
	for _, r := range batch {
		if r.rec != nil {
			n++
		}
	}
	return n
}

// readHeadSQL reads where a session's log ends, its stored leaf, and
// its updated_at and leaf_at_end (for the commit's moveLeafTo; the
// queueing side ignores them).
const readHeadSQL = `SELECT ` + headCols + ` FROM sessions WHERE id = ?`

const headCols = `leaf_seq,
	(SELECT coalesce(max(seq), 0) FROM events WHERE session_id = sessions.id), updated_at, leaf_at_end`

// commitHeadSQL is readHeadSQL with what the batch's ids need (ids.go):
// the largest stored event id and the events' sqlite_sequence counter
// (-1: no row yet).
const commitHeadSQL = `SELECT ` + headCols + `, (SELECT coalesce(max(id), 0) FROM events),
	coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), -1) FROM sessions WHERE id = ?`

// indexEventsSQL adds the text of events with ids in [?, ?] to the
// full-text index in one statement (migrations/0005_search.sql says why
// not a trigger; ftsindex.go when).
const indexEventsSQL = `INSERT INTO events_fts(rowid, text)
	SELECT id, text FROM events WHERE id BETWEEN ? AND ? AND text IS NOT NULL`

// nullString stores "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
