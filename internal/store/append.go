package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// EventRecord is one durable entry in a session's log. The store treats
// Payload as opaque JSON; the session service owns the event types.
type EventRecord struct {
	Session string `json:"session"`
	// Seq numbers the session's events 1, 2, 3… in log order. Append
	// assigns it.
	Seq int64 `json:"seq"`
	// ParentSeq is the event this one follows on its branch of the session
	// tree; 0 means it is a root. Append sets it to the session's leaf.
	ParentSeq int64 `json:"parentSeq"`
	Turn      int   `json:"turn"`
	// Type is the event's snake_case wire name.
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	// Text is what search indexes for this event (user and assistant text,
	// mostly); empty means the event is not searchable. It is written
	// only: reads leave it empty, since the payload carries the content.
	Text string `json:"-"`
	// At is when the event was stored; Append sets it.
	At time.Time `json:"at"`
}

// maxBatch bounds how many concurrent appends share one transaction.
const maxBatch = 512

type appendReq struct {
	rec  *EventRecord
	err  error
	done chan error
}

// Append adds rec to the end of its session's log as a child of the
// session's current leaf, and moves the leaf to it. It fills rec.Seq,
// rec.ParentSeq and rec.At. When Append returns nil the event is committed
// and survives a crash of this process; when it returns an error the event
// was not stored.
//
// Concurrent appends, from this process or others, are serialized by the
// database's write lock; those waiting at the same moment in this process
// share one transaction (group commit), each returning only after it
// committed. ctx is honoured until the event is handed to the committer;
// after that Append waits for the outcome so that its answer is exact.
func (s *Store) Append(ctx context.Context, rec *EventRecord) error {
	if err := validateRecord(rec); err != nil {
		return err
	}
	req := &appendReq{rec: rec, done: make(chan error, 1)}
	select {
	case s.appendCh <- req:
	case <-ctx.Done():
		return fmt.Errorf("append to session %s: %w", rec.Session, ctx.Err())
	case <-s.quit:
		return fmt.Errorf("append to session %s: %w", rec.Session, ErrClosed)
	}
	return <-req.done
}

func validateRecord(rec *EventRecord) error {
	if rec == nil {
		return errors.New("append: nil event")
	}
	if rec.Session == "" {
		return errors.New("append: event has no session id")
	}
	if !validName(rec.Type) {
		return fmt.Errorf("append to session %s: event type %q is not a snake_case name", rec.Session, rec.Type)
	}
	if len(rec.Payload) == 0 {
		rec.Payload = json.RawMessage("{}")
	} else if !json.Valid(rec.Payload) {
		return fmt.Errorf("append %s to session %s: payload is not valid JSON", rec.Type, rec.Session)
	}
	return nil
}

// validName reports whether s is a snake_case identifier of at most 64
// bytes: the shape of event types and session statuses.
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// commitLoop owns the writer for appends: it takes one request, gathers the
// others already waiting, and commits them together.
func (s *Store) commitLoop() {
	defer s.wg.Done()
	batch := make([]*appendReq, 0, maxBatch)
	// Full-text indexing waits until appends pause, a backlog builds up, or
	// a search asks (ftsindex.go).
	var (
		pending int
		timer   = time.NewTimer(time.Hour)
		armed   bool
	)
	timer.Stop()
	defer timer.Stop()
	index := func() error {
		pending = 0
		if armed {
			timer.Stop()
			armed = false
		}
		return s.indexPending(context.Background())
	}
	for {
		select {
		case <-s.quit:
			if pending > 0 {
				_ = index() // best effort; the next Open catches up anyway
			}
			return
		case req := <-s.appendCh:
			batch = s.gather(append(batch[:0], req))
			pending += s.commitBatch(batch)
			switch {
			case pending >= ftsBacklog:
				_ = index()
			case pending > 0 && !armed:
				timer.Reset(ftsDelay)
				armed = true
			}
		case <-timer.C:
			armed = false
			_ = index() // an error here surfaces at the next search
		case req := <-s.ftsCh:
			req.done <- index()
		}
	}
}

// gather adds the appends waiting now to batch. Appenders woken by the
// previous commit are runnable but may not have reached Append yet;
// yielding lets them, so concurrent appenders share commits instead of
// alternating between a batch of one and a batch of the rest.
func (s *Store) gather(batch []*appendReq) []*appendReq {
	for len(batch) < maxBatch {
		runtime.Gosched()
		n := len(batch)
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-s.appendCh:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		if len(batch) == n {
			return batch // nobody came while we yielded
		}
	}
	return batch
}

// commitBatch commits the batch and returns how many stored events carry
// searchable text.
func (s *Store) commitBatch(batch []*appendReq) int {
	err := classify(s.file, s.writeBatch(batch))
	s.commits.Add(1) // read by benchmarks
	stored, searchable := false, 0
	for _, r := range batch {
		if r.err == nil && err != nil {
			r.err = fmt.Errorf("append %s to session %s: %w", r.rec.Type, r.rec.Session, err)
		}
		if r.err != nil {
			r.rec.Seq, r.rec.ParentSeq, r.rec.At = 0, 0, time.Time{}
		} else {
			stored = true
			s.appended.Add(1)
			if r.rec.Text != "" {
				searchable++
			}
		}
		r.done <- r.err
	}
	if stored {
		s.notifyWatchers()
	}
	return searchable
}

// head is a session's log position inside one batch.
type head struct {
	last, leaf int64
	at         int64
	dirty      bool
}

// writeBatch stores the batch in one transaction. A record for a missing
// session fails alone (r.err); any other error fails the whole batch, and
// nothing of it is stored.
func (s *Store) writeBatch(batch []*appendReq) error {
	// Not the callers' contexts: one caller giving up must not abort the
	// others' commit.
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer rollback(tx)
	insert := tx.StmtContext(ctx, s.stmts.insertEvent)
	heads := make(map[string]*head, 1)
	for _, r := range batch {
		rec := r.rec
		h, ok := heads[rec.Session]
		if !ok {
			h, err = readHead(ctx, tx.StmtContext(ctx, s.stmts.readHead), rec.Session)
			if errors.Is(err, ErrNotFound) {
				r.err = fmt.Errorf("append %s to session %s: %w", rec.Type, rec.Session, ErrNotFound)
				continue
			}
			if err != nil {
				return err
			}
			heads[rec.Session] = h
		}
		at := s.now()
		rec.Seq, rec.ParentSeq, rec.At = h.last+1, h.leaf, fromMillis(at)
		if _, err := insert.ExecContext(ctx, rec.Session, rec.Seq, rec.ParentSeq, rec.Turn, rec.Type,
			string(rec.Payload), nullString(rec.Text), at); err != nil {
			return err
		}
		h.last, h.leaf, h.at, h.dirty = rec.Seq, rec.Seq, at, true
	}
	for id, h := range heads {
		if !h.dirty {
			continue
		}
		if _, err := tx.StmtContext(ctx, s.stmts.moveLeaf).ExecContext(ctx, h.leaf, h.at, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func readHead(ctx context.Context, stmt *sql.Stmt, session string) (*head, error) {
	h := &head{}
	err := stmt.QueryRowContext(ctx, session).Scan(&h.leaf, &h.last)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return h, err
}

// appendStmts are the append path's statements, prepared once on the
// writer connection: preparing the insert compiles its search-index
// triggers, which costs more than running it.
type appendStmts struct {
	insertEvent, readHead, moveLeaf *sql.Stmt
}

func (s *Store) prepareAppend(ctx context.Context) error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = s.w.PrepareContext(ctx, q)
		return st
	}
	s.stmts.insertEvent = prep(`INSERT INTO events
		(session_id, seq, parent_seq, turn, type, payload, text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	s.stmts.readHead = prep(`SELECT leaf_seq,
		(SELECT coalesce(max(seq), 0) FROM events WHERE session_id = sessions.id) FROM sessions WHERE id = ?`)
	s.stmts.moveLeaf = prep(`UPDATE sessions SET leaf_seq = ?, updated_at = ? WHERE id = ?`)
	if err != nil {
		return s.openErr(fmt.Errorf("prepare statements: %w", err))
	}
	return nil
}

func (st *appendStmts) close() {
	for _, x := range []*sql.Stmt{st.insertEvent, st.readHead, st.moveLeaf} {
		if x != nil {
			x.Close()
		}
	}
}

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

// watchAppends returns a channel that receives a value (coalesced) after
// appends commit in this process, and a function to stop watching.
func (s *Store) watchAppends() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.watchers[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.watchers, ch)
		s.mu.Unlock()
	}
}

func (s *Store) notifyWatchers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
