package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAppendAsyncOrderAndDurability queues events of two sessions without
// waiting and checks that positions are handed out at once, that the
// callbacks come in queue order, and that each event is readable from
// another connection by the time its callback runs.
func TestAppendAsyncOrderAndDurability(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(ctx, path, Options{}) // another set of connections: what another process sees
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	newSession(t, s, "a")
	newSession(t, s, "b")

	type ack struct {
		i   int
		err error
	}
	const n = 300
	acks := make(chan ack, n)
	var recs []*EventRecord
	for i := range n {
		session := "a"
		if i%3 == 0 {
			session = "b"
		}
		p, _ := json.Marshal(map[string]int{"i": i})
		rec := &EventRecord{Session: session, Type: "x", Payload: p}
		if err := s.AppendAsync(ctx, rec, func(err error) { acks <- ack{i, err} }); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	want := map[string]int64{}
	for i, r := range recs {
		want[r.Session]++
		if r.Seq != want[r.Session] || r.ParentSeq != want[r.Session]-1 || r.At.IsZero() {
			t.Fatalf("event %d of %s placed at seq %d parent %d (at %v) when queued", i, r.Session, r.Seq, r.ParentSeq, r.At)
		}
	}
	for i := range n {
		a := <-acks
		if a.i != i || a.err != nil {
			t.Fatalf("callback %d: event %d, %v (want event %d, nil)", i, a.i, a.err, i)
		}
		r := recs[a.i]
		got, err := other.Events(ctx, r.Session, r.Seq-1, 1)
		if err != nil || len(got) != 1 || got[0].Seq != r.Seq || string(got[0].Payload) != string(r.Payload) {
			t.Fatalf("event %d acknowledged but another connection reads %+v, %v", i, got, err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		sess, err := other.Session(ctx, id)
		if err != nil || sess.LeafSeq != want[id] {
			t.Errorf("session %s: leaf %v, %v; want %d", id, sess, err, want[id])
		}
	}
}

// TestAppendAsyncThenSyncAppend mixes the two kinds of append in one
// session: the synchronous one lands after everything queued before it.
func TestAppendAsyncThenSyncAppend(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		if err := s.AppendAsync(ctx, &EventRecord{Session: "a", Type: "x"}, func(err error) {
			if err != nil {
				t.Error(err)
			}
			wg.Done()
		}); err != nil {
			t.Fatal(err)
		}
	}
	rec := appendText(t, s, "a", "user_message", "after")
	if rec.Seq != 6 || rec.ParentSeq != 5 {
		t.Errorf("synchronous append after five queued: seq %d parent %d", rec.Seq, rec.ParentSeq)
	}
	wg.Wait()
}

// holdWriteLock starts a write transaction on other that appends one event
// to session the way another process would, and returns its commit.
func holdWriteLock(t *testing.T, other *Store, session string, seq int64) func() {
	t.Helper()
	tx, err := other.w.BeginTx(context.Background(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO events (session_id, seq, parent_seq, turn, type, payload, created_at)
		VALUES (?, ?, ?, 0, 'x', '{}', 0)`, session, seq, seq-1); err != nil {
		t.Fatal(err)
	}
	// What a schema-10 committer writes: the flag (a no-op once set), never
	// leaf_seq (SetLeaf alone stores it).
	if _, err := tx.Exec(`UPDATE sessions SET leaf_at_end = 1 WHERE id = ?`, session); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppendAsyncConflict: another process takes the position a queued
// event was given. The queued event and the one queued after it fail with
// ErrConflict (the log keeps no gap and no broken chain); a synchronous
// append, whose position nobody was told, moves to the end instead.
func TestAppendAsyncConflict(t *testing.T) {
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

	commit := holdWriteLock(t, other, "a", 1)
	errs := make(chan error, 2)
	for range 2 {
		if err := s.AppendAsync(ctx, &EventRecord{Session: "a", Type: "x"}, func(err error) { errs <- err }); err != nil {
			t.Fatal(err)
		}
	}
	commit() // the committer, waiting for the lock, now finds seq 1 taken
	for range 2 {
		if err := <-errs; !errors.Is(err, ErrConflict) {
			t.Errorf("queued event whose place was taken: %v, want ErrConflict", err)
		}
	}

	commit = holdWriteLock(t, other, "a", 2)
	done := make(chan *EventRecord)
	go func() {
		rec := &EventRecord{Session: "a", Type: "y"}
		if err := s.Append(ctx, rec); err != nil {
			t.Error(err)
		}
		done <- rec
	}()
	// Whether Append queued before or after the commit, it lands at 3.
	commit()
	if rec := <-done; rec.Seq != 3 || rec.ParentSeq != 2 {
		t.Errorf("synchronous append beside another process: seq %d parent %d, want 3 and 2", rec.Seq, rec.ParentSeq)
	}
	evs, err := s.Events(ctx, "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.ParentSeq != int64(i) {
			t.Fatalf("event %d: seq %d parent %d", i, e.Seq, e.ParentSeq)
		}
	}
	if len(evs) != 3 {
		t.Errorf("%d events stored, want 3", len(evs))
	}
	// With nothing queued, the next queued event starts from the stored log.
	errc := make(chan error, 1)
	rec := &EventRecord{Session: "a", Type: "z"}
	if err := s.AppendAsync(ctx, rec, func(err error) { errc <- err }); err != nil || rec.Seq != 4 {
		t.Fatalf("after the conflict: seq %d, %v", rec.Seq, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestAppendAsyncCloseCommitsQueued: Close commits what was queued before
// it, answers every callback, and refuses what comes after.
func TestAppendAsyncCloseCommitsQueued(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "a")
	var mu sync.Mutex
	acked := 0
	for i := range 200 {
		p := fmt.Appendf(nil, `{"i":%d}`, i)
		if err := s.AppendAsync(ctx, &EventRecord{Session: "a", Type: "x", Payload: p}, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				acked++
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if acked != 200 {
		t.Errorf("%d of 200 queued events acknowledged by Close", acked)
	}
	if err := s.AppendAsync(ctx, &EventRecord{Session: "a", Type: "x"}, func(error) { t.Error("callback after Close") }); !errors.Is(err, ErrClosed) {
		t.Errorf("AppendAsync after Close: %v", err)
	}
	if err := s.Flush(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if evs, err := s.Events(ctx, "a", 0, 0); err != nil || len(evs) != 200 {
		t.Errorf("after reopening: %d events, %v", len(evs), err)
	}
}

func TestAppendAsyncRejects(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	never := func(error) { t.Error("callback of a refused append") }
	if err := s.AppendAsync(ctx, &EventRecord{Session: "nope", Type: "x"}, never); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing session: %v", err)
	}
	if err := s.AppendAsync(ctx, &EventRecord{Session: "a", Type: "Bad"}, never); err == nil {
		t.Error("bad type accepted")
	}
	if err := s.AppendAsync(ctx, &EventRecord{Session: "a", Type: "x"}, nil); err == nil {
		t.Error("nil callback accepted")
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointInBackground: the writer never checkpoints in a commit
// (SQLite's automatic checkpoint is off on it); the background checkpoint
// runs after appends and copies the whole WAL back.
func TestCheckpointInBackground(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.cpBytes = 256 << 10 // a smaller WAL than SQLite's 4 MB calls for one
	var auto int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d, %v; want 0", auto, err)
	}
	newSession(t, s, "a")
	// In WAL mode only a checkpoint writes the database file itself.
	size := func() int64 {
		fi, err := os.Stat(s.File())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	time.Sleep(2 * checkpointEvery) // the session's creation settles
	before, size0 := s.checkpoints.Load(), size()
	for i := range 300 {
		appendText(t, s, "a", "user_message", fmt.Sprintf("message %d %s", i, strings.Repeat("padding ", 200)))
	}
	deadline := time.Now().Add(10 * time.Second)
	for size()-size0 < 300*1600 {
		if time.Now().After(deadline) {
			t.Fatalf("the database file grew %d bytes in 10 s after 480 KB of appends (%d background checkpoints)",
				size()-size0, s.checkpoints.Load()-before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
