//go:build unix

package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStepCommitLeavesSessionRow: an agent step's commit does not write
// the session row while its updated_at stays (the leaf is the last event:
// leaf_at_end), and the session still reads its leaf and updated_at right.
func TestStepCommitLeavesSessionRow(t *testing.T) {
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s := openTest(t, Options{Now: c.now})
	s.cpBytes = 1 << 40 // no background checkpoint: the WAL keeps every frame
	newSession(t, s, "s0")
	appendSteps(t, s, "s0", 5) // the first commit sets leaf_at_end
	before, _ := walFrames(t, s.file)
	appendSteps(t, s, "s0", 20)
	pages, _ := walFrames(t, s.file)
	if s.checkpoints.Load() != 0 {
		t.Skip("a checkpoint ran: the WAL was restarted")
	}
	owners := pageOwners(t, s.file)
	for _, p := range pages[len(before):] {
		if owners[p] == "sessions" {
			t.Fatalf("a step's commit wrote the sessions table's page %d (the session row)", p)
		}
	}
	sess, err := s.Session(context.Background(), "s0")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(25 * len(stepShape)); sess.LeafSeq != want || !sess.UpdatedAt.Equal(c.t) {
		t.Fatalf("leaf %d updated %v, want %d %v", sess.LeafSeq, sess.UpdatedAt, want, c.t)
	}
	// updated_at still moves once a second has passed.
	c.advance(1500 * time.Millisecond)
	appendSteps(t, s, "s0", 1)
	if sess, err = s.Session(context.Background(), "s0"); err != nil || !sess.UpdatedAt.Equal(c.t) {
		t.Fatalf("updated %v (%v), want %v", sess.UpdatedAt, err, c.t)
	}
}

// TestLeafAtEndBranches: with the leaf no longer stored at each commit,
// SetLeaf, the appends after it, Path, List, Fork and a reopen (the
// queue's stored head) all see the leaf where it is.
func TestLeafAtEndBranches(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	newSession(t, s, "a")
	for i := range 4 {
		appendText(t, s, "a", "note", "n"+strconv.Itoa(i)) // seqs 1–4
	}
	leaf := func(want int64) {
		t.Helper()
		sess, err := s.Session(ctx, "a")
		if err != nil || sess.LeafSeq != want {
			t.Fatalf("Session leaf %d (%v), want %d", sess.LeafSeq, err, want)
		}
		list, err := s.ListSessions(ctx, ListFilter{})
		i := slices.IndexFunc(list, func(x Session) bool { return x.ID == "a" })
		if err != nil || i < 0 || list[i].LeafSeq != want {
			t.Fatalf("ListSessions %v (%v), want a's leaf %d", list, err, want)
		}
	}
	leaf(4)
	if err := s.SetLeaf(ctx, "a", 2); err != nil {
		t.Fatal(err)
	}
	leaf(2)
	if evs, err := s.Path(ctx, "a", 0); err != nil || !slices.Equal(seqsOf(evs), []int64{1, 2}) {
		t.Fatalf("path after SetLeaf %v (%v)", seqsOf(evs), err)
	}
	e5 := appendText(t, s, "a", "note", "n5")
	if e5.Seq != 5 || e5.ParentSeq != 2 {
		t.Fatalf("append after SetLeaf: seq %d parent %d, want 5 2", e5.Seq, e5.ParentSeq)
	}
	leaf(5)
	if evs, err := s.Path(ctx, "a", 0); err != nil || !slices.Equal(seqsOf(evs), []int64{1, 2, 5}) {
		t.Fatalf("path %v (%v), want 1 2 5", seqsOf(evs), err)
	}
	f, err := s.Fork(ctx, "a", 0, "f")
	if err != nil || f.LeafSeq != 5 {
		t.Fatalf("fork at the leaf: %+v (%v)", f, err)
	}
	// Back to seq 4 (the end of the other branch), then a reopen: the next
	// event is read from the stored row, not this process's known head.
	if err := s.SetLeaf(ctx, "a", 4); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	leaf(4)
	e6 := appendText(t, s, "a", "note", "n6")
	if e6.Seq != 6 || e6.ParentSeq != 4 {
		t.Fatalf("append after reopen: seq %d parent %d, want 6 4", e6.Seq, e6.ParentSeq)
	}
	leaf(6)
}

// TestMigrateLeafAtEnd upgrades a database at schema version 9, whose
// session's leaf is on a branch (not its last event), and appends.
func TestMigrateLeafAtEnd(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db := rawDB(t, path)
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:9] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	for _, q := range []string{
		`PRAGMA user_version = 9`,
		`INSERT INTO sessions (id, workspace, leaf_seq, created_at, updated_at) VALUES ('old', '/w', 2, 1, 1)`,
		`INSERT INTO events (session_id, seq, parent_seq, type, payload, created_at) VALUES
			('old', 1, 0, 'note', '{}', 1), ('old', 2, 1, 'note', '{}', 1), ('old', 3, 2, 'note', '{}', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Session(ctx, "old")
	if err != nil || sess.LeafSeq != 2 {
		t.Fatalf("migrated leaf %d (%v), want 2 (leaf_seq, not the last event)", sess.LeafSeq, err)
	}
	rec := appendText(t, s, "old", "note", "after")
	if rec.Seq != 4 || rec.ParentSeq != 2 {
		t.Fatalf("append: seq %d parent %d, want 4 2", rec.Seq, rec.ParentSeq)
	}
	var atEnd sql.NullInt64
	if err := s.r.QueryRow(`SELECT leaf_at_end FROM sessions WHERE id = 'old'`).Scan(&atEnd); err != nil || atEnd.Int64 != 1 {
		t.Fatalf("leaf_at_end %v (%v), want 1 after an append", atEnd, err)
	}
	if sess, err = s.Session(ctx, "old"); err != nil || sess.LeafSeq != 4 {
		t.Fatalf("leaf %d (%v), want 4", sess.LeafSeq, err)
	}
}

// TestLeafGuardRefusesOldWriter: an olly from before leaf_at_end, still
// running when the file was upgraded, writes leaf_seq at each commit; on
// a session whose leaf the flag keeps, that write fails with a message
// (its append is not stored under the stale leaf it read), and SetLeaf
// still moves the leaf.
func TestLeafGuardRefusesOldWriter(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	appendText(t, s, "a", "note", "one")
	appendText(t, s, "a", "note", "two")
	// The old committer's leaf write (it would store its next event, 3).
	_, err := s.w.ExecContext(ctx, `UPDATE sessions SET leaf_seq = ?, updated_at = ? WHERE id = ?`, 3, 5, "a")
	if err == nil || !strings.Contains(err.Error(), "restart olly") {
		t.Fatalf("old olly's leaf write: err = %v, want the guard's message", err)
	}
	if err := s.SetLeaf(ctx, "a", 1); err != nil {
		t.Fatalf("SetLeaf: %v", err)
	}
	// With the flag clear (leaf_seq holds), an old olly's write is fine.
	if _, err := s.w.ExecContext(ctx, `UPDATE sessions SET leaf_seq = ? WHERE id = ?`, 2, "a"); err != nil {
		t.Fatalf("leaf write with the flag clear: %v", err)
	}
	if sess, err := s.Session(ctx, "a"); err != nil || sess.LeafSeq != 2 {
		t.Fatalf("leaf %d (%v), want 2", sess.LeafSeq, err)
	}
}

// TestOldReaderFindsNoStaleLeaf: an olly from before leaf_at_end reads
// leaf_seq as the leaf. On a flagged session that is no event at all, so
// its resume, Path and Fork fail instead of working from the leaf of the
// flag's first commit, which later appends have left behind.
func TestOldReaderFindsNoStaleLeaf(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	for _, x := range []string{"one", "two", "three"} {
		appendText(t, s, "a", "note", x)
	}
	var raw int64
	if err := s.w.QueryRowContext(ctx, `SELECT leaf_seq FROM sessions WHERE id = 'a'`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE session_id = 'a' AND seq = ?`, raw).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("an old reader's leaf_seq %d is an event of the session (a stale leaf it would work from)", raw)
	}
	if sess, err := s.Session(ctx, "a"); err != nil || sess.LeafSeq != 3 {
		t.Fatalf("this olly's leaf: %v (%v), want 3", sess, err)
	}
	// SetLeaf stores a real leaf and clears the flag: an old reader agrees.
	if err := s.SetLeaf(ctx, "a", 2); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRowContext(ctx, `SELECT leaf_seq FROM sessions WHERE id = 'a'`).Scan(&raw); err != nil || raw != 2 {
		t.Fatalf("leaf_seq after SetLeaf: %d (%v), want 2", raw, err)
	}
}
