package store

import (
	"context"
	"errors"
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
