package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	// Marshalled says that Payload is what json.Marshal returned, which is
	// valid JSON: the append does not parse it again to check (the
	// session's records, a few KB each, at every step).
	Marshalled bool `json:"-"`
	// Text is what search indexes for this event (user and assistant text,
	// mostly); empty means the event is not searchable. It is written
	// only: reads leave it empty, since the payload carries the content.
	Text string `json:"-"`
	// At is when the event was stored; Append sets it.
	At time.Time `json:"at"`
}

// maxBatch bounds how many queued appends share one transaction.
const maxBatch = 1024

// appendReq is one queued append, or (rec nil) a Flush marker.
type appendReq struct {
	rec *EventRecord
	// pinned: the caller was given rec.Seq when it queued the event
	// (AppendAsync), so the event can only be stored at that position.
	// An unpinned one (Append) takes the log's next position at commit.
	pinned bool
	// prev is the request queued before this one for the same session,
	// until this one is written: a pinned event follows its predecessor
	// or is not stored at all.
	prev *appendReq
	err  error
	done func(error)
}

// queuedHead is a session's log position after the events queued for it
// and not yet committed. It exists only while some are queued.
type queuedHead struct {
	last, leaf int64
	queued     int
	tail       *appendReq // the last request queued
}

// Append adds rec to the end of its session's log as a child of the
// session's current leaf, and moves the leaf to it. It fills rec.Seq,
// rec.ParentSeq and rec.At. When Append returns nil the event is committed
// and survives a crash of this process; when it returns an error the event
// was not stored.
//
// Concurrent appends, from this process or others, are serialized by the
// database's write lock; those queued at the same moment in this process
// share one transaction (group commit), each returning only after it
// committed. ctx is honoured until the event is queued; after that Append
// waits for the outcome so that its answer is exact.
func (s *Store) Append(ctx context.Context, rec *EventRecord) error {
	done := make(chan error, 1)
	if err := s.enqueue(ctx, rec, false, func(err error) { done <- err }); err != nil {
		return err
	}
	return <-done
}

// AppendAsync queues rec for the end of its session's log and returns
// without waiting for the commit: the write-behind half of group commit,
// for a single appender whose events would otherwise each pay a commit.
// It fills rec.Seq, rec.ParentSeq and rec.At before it returns; the caller
// must not change rec afterwards. done is called exactly once, on the
// store's committer goroutine, after the transaction holding rec ended:
// with nil when rec is durable (the acknowledgement), or with the error
// that kept it out. Calls of done follow the order in which events were
// queued, across sessions and across Append and AppendAsync, so publishing
// from done publishes in log order and never before durability. done must
// not block or call the store. When AppendAsync returns an error, the
// event was not queued and done is never called.
//
// Events of one session queued before a commit ends all go into the
// commit that follows. An event whose position was taken meanwhile by
// another process appending to the same session fails with ErrConflict,
// as do the events of that session queued after it: the log stays a
// prefix of what was queued, without gaps.
func (s *Store) AppendAsync(ctx context.Context, rec *EventRecord, done func(error)) error {
	if done == nil {
		return errors.New("append: AppendAsync needs a done function")
	}
	return s.enqueue(ctx, rec, true, done)
}

// Flush waits until every append queued before it has been committed (or
// failed): what AppendAsync queued is committed now instead of after the
// commit delay. Its error is ctx's or ErrClosed; failures of the appends
// themselves go to their own callers.
func (s *Store) Flush(ctx context.Context) error {
	done := make(chan struct{})
	if err := s.push(&appendReq{done: func(error) { close(done) }}); err != nil {
		return fmt.Errorf("flush appends: %w", err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flush appends: %w", ctx.Err())
	}
}

// enqueue gives rec its position after whatever is queued for its session
// (or, with nothing queued, after the session's stored leaf) and queues it.
func (s *Store) enqueue(ctx context.Context, rec *EventRecord, pinned bool, done func(error)) error {
	if err := validateRecord(rec); err != nil {
		return err
	}
	s.qmu.Lock()
	if s.qclosed {
		s.qmu.Unlock()
		return fmt.Errorf("append to session %s: %w", rec.Session, ErrClosed)
	}
	h := s.qheads[rec.Session]
	if h == nil {
		if h = s.knownHead(rec.Session); h == nil {
			var err error
			if h, err = s.storedHead(ctx, rec.Session); err != nil {
				s.qmu.Unlock()
				return fmt.Errorf("append %s to session %s: %w", rec.Type, rec.Session, classify(s.file, err))
			}
		}
		s.qheads[rec.Session] = h
	}
	rec.Seq, rec.ParentSeq, rec.At = h.last+1, h.leaf, fromMillis(s.now())
	h.last, h.leaf = rec.Seq, rec.Seq
	h.queued++
	r := &appendReq{rec: rec, pinned: pinned, prev: h.tail, done: done}
	h.tail = r
	// The committer needs waking only when this is the first event it has
	// to handle (it then commits it or starts the commit delay), when the
	// event must not wait, or when the batch is full: an event queued
	// behind others is taken along by the commit or the delay they
	// started. (Waking it for each of a step's dozen events cost a
	// goroutine switch each.)
	wake := len(s.queue) == 0 || !pinned
	s.queue = append(s.queue, r)
	wake = wake || len(s.queue) >= maxBatch
	s.qurgent = s.qurgent || !pinned // Append waits for its commit
	s.qmu.Unlock()
	if wake {
		s.wakeCommitter()
	}
	return nil
}

// push queues a request that takes no log position (a Flush marker).
func (s *Store) push(r *appendReq) error {
	s.qmu.Lock()
	if s.qclosed {
		s.qmu.Unlock()
		return ErrClosed
	}
	s.queue = append(s.queue, r)
	s.qurgent = true
	s.qmu.Unlock()
	s.wakeCommitter()
	return nil
}

func (s *Store) wakeCommitter() {
	s.wakes.Add(1)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// headTrust is how long after this process committed to a session it
// takes its own record of where the session's log ends (knownHead) instead
// of reading it. Reading it cost a query whose pages the commit had just
// invalidated, on every agent step (the first event after each commit).
// Another process appending to the session inside this window makes the
// events queued here from the stale position fail with ErrConflict (as
// they do when it appends between the read and the commit); after it the
// log is read again.
const headTrust = 250 * time.Millisecond

// knownHead is a session's log position as this process's last commit to
// it left it.
type knownHead struct {
	last int64     // the last event stored, which is also the leaf
	at   time.Time // when the commit ended (monotonic)
}

// knownHead returns where the session's next event goes according to this
// process's own last commit to it, or nil when that is unknown or older
// than headTrust. s.qmu is held.
func (s *Store) knownHead(session string) *queuedHead {
	k, ok := s.known[session]
	if !ok {
		return nil
	}
	if time.Since(k.at) >= s.headTrust {
		delete(s.known, session)
		return nil
	}
	return &queuedHead{last: k.last, leaf: k.last}
}

// forgetHead drops what this process knows of the session's log end: for
// writes other than appends that move it (SetLeaf, DeleteSession).
func (s *Store) forgetHead(session string) {
	s.qmu.Lock()
	delete(s.known, session)
	s.qmu.Unlock()
}

// storedHead reads the session's committed leaf and last seq. With nothing
// of the session queued in this process, that is where its next event goes
// (unless another process appends first: writeBatch checks).
func (s *Store) storedHead(ctx context.Context, session string) (*queuedHead, error) {
	s.headReads.Add(1)
	h := &queuedHead{}
	var updated int64
	var atEnd bool
	err := s.readHeadR.QueryRowContext(ctx, session).Scan(&h.leaf, &h.last, &updated, &atEnd)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if atEnd {
		h.leaf = h.last // leaf_seq is not kept up to date (leafExpr)
	}
	return h, err
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
	} else if !rec.Marshalled && !json.Valid(rec.Payload) {
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
