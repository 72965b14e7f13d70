package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// appendStep queues n events of session with AppendAsync and flushes: one
// agent step. It returns the records and their acknowledgements.
func appendStep(t *testing.T, s *Store, session string, n int) ([]*EventRecord, []error) {
	t.Helper()
	errs := make([]error, n)
	recs := make([]*EventRecord, n)
	for i := range n {
		recs[i] = &EventRecord{Session: session, Type: "x"}
		if err := s.AppendAsync(context.Background(), recs[i], func(err error) { errs[i] = err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return recs, errs
}

// After its own commit the store knows where the session's log ends: the
// steps of a turn read it once, not once per commit, and the log is one
// unbroken chain.
func TestKnownHeadSkipsTheRead(t *testing.T) {
	s := openTest(t)
	s.headTrust = time.Hour
	newSession(t, s, "a")
	for range 12 {
		_, errs := appendStep(t, s, "a", 12)
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := s.headReads.Load(); n != 1 {
		t.Errorf("12 steps read the session's head %d times, want 1", n)
	}
	evs, err := s.Events(context.Background(), "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.ParentSeq != int64(i) {
			t.Fatalf("event %d: seq %d parent %d", i, e.Seq, e.ParentSeq)
		}
	}
	if len(evs) != 144 {
		t.Errorf("%d events stored, want 144", len(evs))
	}
}

// SetLeaf moves the leaf under the known head: the next event follows the
// new leaf.
func TestKnownHeadForgottenBySetLeaf(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.headTrust = time.Hour
	newSession(t, s, "a")
	appendStep(t, s, "a", 3)
	if err := s.SetLeaf(ctx, "a", 1); err != nil {
		t.Fatal(err)
	}
	recs, errs := appendStep(t, s, "a", 1)
	if errs[0] != nil || recs[0].Seq != 4 || recs[0].ParentSeq != 1 {
		t.Fatalf("after SetLeaf(1): seq %d parent %d, %v; want 4 after 1", recs[0].Seq, recs[0].ParentSeq, errs[0])
	}
}

// Another process appends to the session after this one's commit. Past
// headTrust the log is read again and the next event goes after the other
// process's; within it, the event queued at the stale position fails with
// ErrConflict and the one after it reads the log again.
func TestKnownHeadAndAnotherProcess(t *testing.T) {
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

	s.headTrust = 0 // always read
	appendStep(t, s, "a", 1)
	if err := other.Append(ctx, &EventRecord{Session: "a", Type: "y"}); err != nil {
		t.Fatal(err)
	}
	recs, errs := appendStep(t, s, "a", 1)
	if errs[0] != nil || recs[0].Seq != 3 || recs[0].ParentSeq != 2 {
		t.Fatalf("after the other process's event: seq %d parent %d, %v; want 3 after 2", recs[0].Seq, recs[0].ParentSeq, errs[0])
	}

	s.headTrust = time.Hour
	if err := other.Append(ctx, &EventRecord{Session: "a", Type: "y"}); err != nil {
		t.Fatal(err)
	}
	_, errs = appendStep(t, s, "a", 1)
	if !errors.Is(errs[0], ErrConflict) {
		t.Fatalf("event queued at the known head the other process took: %v, want ErrConflict", errs[0])
	}
	recs, errs = appendStep(t, s, "a", 1)
	if errs[0] != nil || recs[0].Seq != 5 || recs[0].ParentSeq != 4 {
		t.Fatalf("after the conflict: seq %d parent %d, %v; want 5 after 4", recs[0].Seq, recs[0].ParentSeq, errs[0])
	}
}

// A commit moves the session's updated_at only when its last event is at
// least updatedGrain later (the column's two indexes cost two more pages a
// commit).
func TestUpdatedAtGrain(t *testing.T) {
	ctx := context.Background()
	t0 := time.UnixMilli(1_700_000_000_000)
	c := &clock{t: t0}
	s := openTest(t, Options{Now: c.now})
	newSession(t, s, "a")
	updated := func() time.Time {
		t.Helper()
		sess, err := s.Session(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		return sess.UpdatedAt
	}
	c.advance(500 * time.Millisecond)
	appendStep(t, s, "a", 2)
	if got := updated(); !got.Equal(t0) {
		t.Errorf("updated_at after an event 0.5 s later: %v, want %v (unchanged)", got, t0)
	}
	c.advance(700 * time.Millisecond)
	appendStep(t, s, "a", 2)
	if got, want := updated(), t0.Add(1200*time.Millisecond); !got.Equal(want) {
		t.Errorf("updated_at after an event 1.2 s later: %v, want %v", got, want)
	}
	c.t = t0 // the clock went back
	appendStep(t, s, "a", 1)
	if got := updated(); !got.Equal(t0) {
		t.Errorf("updated_at after an event from an earlier clock: %v, want %v", got, t0)
	}
}

// A batch is inserted with multi-row INSERTs of a few sizes: every size
// and split keeps the events in queue order (ids follow seqs) with their
// fields, sessions interleaved.
func TestBatchInsertChunks(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Options{CommitDelay: time.Hour})
	newSession(t, s, "a")
	newSession(t, s, "b")
	total := map[string]int{}
	for _, n := range []int{1, 3, 12, 64, 77, 130} {
		c0 := s.commits.Load()
		errs := make(chan error, n)
		for i := range n {
			id := "a"
			if i%3 == 2 {
				id = "b"
			}
			total[id]++
			rec := &EventRecord{Session: id, Turn: i, Type: "x", Payload: []byte(fmt.Sprintf(`{"i":%d}`, i)), Text: fmt.Sprint("word", i)}
			if err := s.AppendAsync(ctx, rec, func(err error) { errs <- err }); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("batch of %d: %v", n, err)
			}
		}
		if got := s.commits.Load() - c0; got != 1 {
			t.Errorf("batch of %d took %d commits", n, got)
		}
	}
	for id, want := range total {
		evs, err := s.Events(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != want {
			t.Fatalf("session %s: %d events, want %d", id, len(evs), want)
		}
		for i, e := range evs {
			if e.Seq != int64(i+1) || e.ParentSeq != int64(i) || e.Type != "x" || !json.Valid(e.Payload) {
				t.Fatalf("session %s event %d: %+v", id, i, e)
			}
		}
		rows, err := s.r.QueryContext(ctx, `SELECT seq FROM events WHERE session_id = ? ORDER BY id`, id)
		if err != nil {
			t.Fatal(err)
		}
		var last int64
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				t.Fatal(err)
			}
			if seq != last+1 {
				t.Fatalf("session %s: seq %d inserted after %d", id, seq, last)
			}
			last = seq
		}
		rows.Close()
	}
	res, err := s.Search(ctx, SearchQuery{Text: "word129"})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("search for the last batch's text: %+v %v", res, err)
	}
}

// The committer is woken by the first event queued for it, not by each:
// the events queued behind it are taken along by the commit delay it
// started, and Flush and Append wake it at once.
func TestQueuedEventsWakeTheCommitterOnce(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Options{CommitDelay: time.Hour})
	newSession(t, s, "a")
	w0 := s.wakes.Load()
	acks := queueAsync(t, s, "a", 12)
	if got := s.wakes.Load() - w0; got != 1 {
		t.Errorf("12 queued events woke the committer %d times, want 1", got)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	waitAcks(t, acks, 12, time.Second)

	// With no delay each wake commits; what is queued meanwhile goes into
	// the next commit without a wake of its own.
	s2 := openTest(t, Options{CommitDelay: -1})
	newSession(t, s2, "a")
	acks = queueAsync(t, s2, "a", 200)
	waitAcks(t, acks, 200, 30*time.Second)
	if n, err := s2.LastSeq(ctx, "a"); err != nil || n != 200 {
		t.Fatalf("stored up to %d (%v), want 200", n, err)
	}
}
