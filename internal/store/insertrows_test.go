package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// Events that fail alone leave fewer rows than were queued: the rest
// still go in (of 12 queued rows, the 10 left go in with a 10-row
// statement), also on a connection that has no insert statement yet: the
// batch prepares the one it needs inside its transaction.
func TestBatchWithConflictsInsertsTheRest(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	newSession(t, s, "a")
	newSession(t, s, "b")
	s.headTrust = time.Hour
	appendStep(t, s, "a", 1) // s now takes a's head as known
	// As on a fresh writer connection: no insert statement yet (the step
	// above prepared some). The batch below must prepare its own.
	err = s.withRaw(ctx, func(wc *writerConn) error {
		if len(wc.inserts) == 0 {
			return errors.New("the step prepared no insert statement")
		}
		for k, st := range wc.inserts {
			delete(wc.inserts, k)
			if err := st.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Append(ctx, &EventRecord{Session: "a", Type: "y"}); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 12)
	for i := range errs {
		id := "b"
		if i < 2 {
			id = "a" // queued at the head the other process took
		}
		if err := s.AppendAsync(ctx, &EventRecord{Session: id, Type: "x"}, func(err error) { errs[i] = err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if i < 2 && err == nil {
			t.Errorf("event %d of a: stored, want a conflict", i)
		}
		if i >= 2 && err != nil {
			t.Errorf("event %d of b: %v", i, err)
		}
	}
	evs, err := s.Events(ctx, "b", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 10 {
		t.Fatalf("b has %d events, want 10", len(evs))
	}
}

// A batch that fails half-way (here: reading the second session's head)
// stores nothing, and leaves nothing behind for the next batch to store.
func TestFailedBatchLeavesNoRows(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, id := range []string{"a", "b", "c"} {
		newSession(t, s, id)
	}
	appendSessions(t, s, "c") // the committer's statements exist
	var bad, good rawStmt
	// abs() of the smallest integer is an SQLite error: b's head cannot be read.
	err := s.withRaw(ctx, func(wc *writerConn) error {
		var err error
		bad, err = prepareRaw(ctx, wc, `SELECT leaf_seq, 0,
		CASE WHEN id = 'b' THEN abs(-9223372036854775807 - 1) ELSE updated_at END, leaf_at_end, 0, -1
		FROM sessions WHERE id = ?`)
		if err == nil {
			good, wc.raw.readHead = wc.raw.readHead, bad
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	restore := func(wc *writerConn) error {
		if wc.raw.readHead != bad {
			return nil // restored already
		}
		wc.raw.readHead = good
		return bad.Close()
	}
	defer func() { _ = s.withRaw(ctx, restore) }()
	_, errs := appendSessions(t, s, "a", "b")
	for i, err := range errs {
		if err == nil {
			t.Errorf("event %d of the failed batch: stored", i)
		}
	}
	if err := s.withRaw(ctx, restore); err != nil {
		t.Fatal(err)
	}
	recs, errs := appendSessions(t, s, "c", "c", "c")
	for i, err := range errs {
		if err != nil || recs[i].Seq != int64(i+2) {
			t.Errorf("event %d of c: seq %d, %v; want seq %d", i, recs[i].Seq, err, i+2)
		}
	}
	for _, id := range []string{"a", "b"} {
		evs, err := s.Events(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 0 {
			t.Errorf("session %s has %d events from the failed batch, want 0", id, len(evs))
		}
	}
}

// appendSessions queues one event for each session named, in one batch.
func appendSessions(t *testing.T, s *Store, ids ...string) ([]*EventRecord, []error) {
	t.Helper()
	recs := make([]*EventRecord, len(ids))
	errs := make([]error, len(ids))
	for i, id := range ids {
		recs[i] = &EventRecord{Session: id, Type: "x"}
		if err := s.AppendAsync(context.Background(), recs[i], func(err error) { errs[i] = err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("flush: %v", err)
	}
	return recs, errs
}
