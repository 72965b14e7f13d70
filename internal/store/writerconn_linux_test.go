package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInterruptedWritesLeaveNoZombies: a write interrupted by its context
// (here while it waits for another connection's write lock) marks the
// writer's SQLite connection interrupted, and database/sql discards it.
// The committer's statements prepared on it must be finalized before it
// closes: sqlite3_close_v2 keeps a connection with live statements open as
// a zombie, holding the database and WAL files, for good (the driver frees
// what finalizing them needs). After each discard the committer prepares
// its statements on the new connection; the files open stay as many, and
// none is left open once the store is closed.
func TestInterruptedWritesLeaveNoZombies(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "z")
	appendSessions(t, s, "z") // the committer's statements exist on the writer

	locker, err := sql.Open("sqlite", fileURI(s.file, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	lock, err := locker.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	round := func(i int) {
		if _, err := lock.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		_, err := s.w.ExecContext(wctx, "UPDATE sessions SET title = 'x' WHERE id = 'z'")
		cancel()
		if err == nil {
			t.Fatalf("round %d: the write went through another connection's write lock", i)
		}
		if _, err := lock.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
		if _, errs := appendSessions(t, s, "z"); errs[0] != nil {
			t.Fatalf("round %d: append after the interrupted write: %v", i, errs[0])
		}
	}
	round(0) // every connection the rounds use is open
	before := openFilesOf(t, s.file, s.file+"-wal")
	const rounds = 3
	for i := range rounds {
		round(i + 1)
	}
	if after := openFilesOf(t, s.file, s.file+"-wal"); after > before {
		t.Fatalf("database and WAL open %d times after %d more interrupted writes, %d before: discarded writer connections live on",
			after, rounds, before)
	}
	evs, err := s.Events(ctx, "z", 0, 0)
	if err != nil || len(evs) != rounds+2 {
		t.Fatalf("%d events, %v; want %d", len(evs), err, rounds+2)
	}
	// Closed, the store leaves nothing open: no connection, live or
	// discarded, kept a statement that made it a zombie.
	lock.Close()
	locker.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := openFilesOf(t, s.file, s.file+"-wal"); n != 0 {
		t.Fatalf("database and WAL still open %d times after Close", n)
	}
}

// openFilesOf counts this process's open descriptors on the paths.
func openFilesOf(t *testing.T, paths ...string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list open files: %v", err)
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // the directory's own descriptor, closed by now
		}
		for _, p := range paths {
			if target == p {
				n++
			}
		}
	}
	return n
}

// TestRetriedPrepareFinalizesAll: when preparing the committer's
// statements fails part-way on a live connection, the attempt finalizes
// what it prepared (rc.close, called here to stand for it) and the next
// batch prepares them again; the insert statements already on the
// connection stay its own and are finalized with it: once the store is
// closed nothing keeps the database open.
func TestRetriedPrepareFinalizesAll(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "r")
	appendSessions(t, s, "r") // statements, inserts among them, on the writer
	if err := s.withRaw(ctx, func(wc *writerConn) error {
		wc.raw.close() // what a prepare failing part-way leaves: none of rc's statements
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, errs := appendSessions(t, s, "r", "r"); errs[0] != nil || errs[1] != nil {
		t.Fatalf("append after the retried prepare: %v", errs)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := openFilesOf(t, s.file, s.file+"-wal"); n != 0 {
		t.Fatalf("database and WAL still open %d times after Close: a statement kept the writer alive", n)
	}
}
