//go:build unix

package store

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestStepCommitLeavesIDCounter: once its block of ids is reserved, an
// agent step's commit does not write the AUTOINCREMENT counter
// (sqlite_sequence).
func TestStepCommitLeavesIDCounter(t *testing.T) {
	s := openTest(t)
	s.cpBytes = 1 << 40 // no background checkpoint: the WAL keeps every frame
	newSession(t, s, "s0")
	appendSteps(t, s, "s0", 1) // reserves the block
	before, _ := walFrames(t, s.file)
	appendSteps(t, s, "s0", 20) // 240 events: within the block
	pages, _ := walFrames(t, s.file)
	if s.checkpoints.Load() != 0 {
		t.Skip("a checkpoint ran: the WAL was restarted")
	}
	owners := pageOwners(t, s.file)
	for _, p := range pages[len(before):] {
		if owners[p] == "sqlite_sequence" {
			t.Fatalf("a step's commit wrote sqlite_sequence's page %d", p)
		}
	}
	// One block: the 252 events' ids are consecutive, in seq order (each
	// multi-row INSERT numbers its rows ?1, ?1 + 1…).
	rows, err := s.r.Query(`SELECT id FROM events WHERE session_id = 's0' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var prev, n int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		if n > 0 && id != prev+1 {
			t.Fatalf("event %d has id %d after %d", n+1, id, prev)
		}
		prev, n = id, n+1
	}
	if err := rows.Err(); err != nil || n != 21*int64(len(stepShape)) {
		t.Fatalf("%d events (%v)", n, err)
	}
}

// maxEventID is the largest stored event id.
func maxEventID(t *testing.T, s *Store) int64 {
	t.Helper()
	var id int64
	if err := s.r.QueryRow(`SELECT coalesce(max(id), 0) FROM events`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestEventIDsGrowAndAreNeverReused: with the committer's id blocks, an
// event's id is above every id stored before it — also when another
// Store (another process) on the file appended meanwhile, or a fork's
// copies took AUTOINCREMENT ids — and above every id ever used, also
// after the newest events were deleted with their session.
func TestEventIDsGrowAndAreNeverReused(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	b, err := Open(ctx, a.file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	newSession(t, a, "x")
	newSession(t, a, "y")
	var highest int64 // the largest id ever stored
	check := func(s *Store, session string, rec *EventRecord) {
		t.Helper()
		id := eventID(t, s, session, rec.Seq)
		if id <= highest {
			t.Fatalf("%s/%d got id %d, not above %d (stored before it)", session, rec.Seq, id, highest)
		}
		highest = id
	}
	for i := range 3 {
		check(a, "x", appendText(t, a, "x", "note", "a"))
		check(b, "y", appendText(t, b, "y", "note", "b")) // above a's block
		check(a, "x", appendText(t, a, "x", "note", "a")) // a moves above b's
		if i == 1 {
			f, err := a.Fork(ctx, "x", 0, "") // AUTOINCREMENT ids for the copies
			if err != nil {
				t.Fatal(err)
			}
			highest = maxEventID(t, a)
			check(a, f.ID, appendText(t, a, f.ID, "note", "fork"))
		}
	}
	// The newest events leave with their session: their ids stay used.
	newSession(t, b, "z")
	for range 3 {
		check(b, "z", appendText(t, b, "z", "note", "z"))
	}
	if err := b.DeleteSession(ctx, "z"); err != nil {
		t.Fatal(err)
	}
	if maxEventID(t, a) >= highest {
		t.Fatal("deleting z left its ids stored")
	}
	check(a, "x", appendText(t, a, "x", "note", "afterwards quokka"))
	check(b, "y", appendText(t, b, "y", "note", "afterwards wombat"))
	// The delete indexed everything before it: the events after it are
	// above the full-text cursor, so search finds them.
	for word, want := range map[string]string{"quokka": "x", "wombat": "y"} {
		res, err := a.Search(ctx, SearchQuery{Text: word})
		if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Session.ID != want {
			t.Fatalf("search %q: %+v (%v), want session %s", word, res, err, want)
		}
	}
}

// TestBigBatchIDs: a batch cut into several INSERTs (64s, 16s, the rest)
// numbers its events consecutively across them.
func TestBigBatchIDs(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "s0")
	for range 150 { // 64 + 64 + 16 + 6
		if err := s.AppendAsync(ctx, &EventRecord{Session: "s0", Type: "note", Payload: []byte(`{}`)}, func(error) {}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	first := eventID(t, s, "s0", 1)
	for seq := int64(2); seq <= 150; seq++ {
		if id := eventID(t, s, "s0", seq); id != first+seq-1 {
			t.Fatalf("event %d has id %d, want %d", seq, id, first+seq-1)
		}
	}
}

// TestFailedBatchForgetsItsBlock: a batch that reserved a block and then
// failed is rolled back with its reservation; the committer must not use
// that block later, or another process that reserved the same ids meanwhile
// (and deleted them with their session) would see them reused below the
// indexers' cursors (search would not find the event).
func TestFailedBatchForgetsItsBlock(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	open := func() *Store {
		t.Helper()
		s, err := Open(ctx, a.file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	b, c := open(), open()
	for _, id := range []string{"x", "z", "w"} {
		newSession(t, a, id)
	}
	appendText(t, a, "x", "note", "one")
	appendText(t, b, "z", "note", "two") // a's block is no longer at the counter's end
	// a's next batch reserves a new block, then fails (the writer has one
	// connection: the TEMP trigger is on it).
	if _, err := a.w.Exec(`CREATE TEMP TRIGGER boom BEFORE INSERT ON events WHEN NEW.type = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(ctx, &EventRecord{Session: "x", Type: "boom", Payload: []byte(`{}`)}); err == nil {
		t.Fatal("the failing batch was stored")
	}
	// c reserves the same block (the rollback put the counter back) and
	// its ids are deleted with their session.
	var ids []int64
	for _, x := range []string{"three", "four", "five"} {
		rec := appendText(t, c, "w", "note", x)
		ids = append(ids, eventID(t, c, "w", rec.Seq))
	}
	if err := c.DeleteSession(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	rec := appendText(t, a, "x", "note", "afterwards quokka")
	if id := eventID(t, a, "x", rec.Seq); id <= ids[len(ids)-1] {
		t.Fatalf("event id %d reuses the deleted session's ids %v", id, ids)
	}
	res, err := a.Search(ctx, SearchQuery{Text: "quokka"})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("search after the failed batch: %+v, %v", res, err)
	}
}

// TestEventIDsExhausted: near the largest id an append fails with a
// message, as AUTOINCREMENT does, instead of wrapping to ids below every
// stored one.
func TestEventIDsExhausted(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "s0")
	appendText(t, s, "s0", "note", "a")
	if _, err := s.w.Exec(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'`, int64(math.MaxInt64-5)); err != nil {
		t.Fatal(err)
	}
	var err error
	for range 8 {
		if err = s.Append(ctx, &EventRecord{Session: "s0", Type: "note", Payload: []byte(`{}`)}); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("append near the largest id: %v, want the exhausted error", err)
	}
	var minID int64
	if err := s.r.QueryRow(`SELECT min(id) FROM events`).Scan(&minID); err != nil || minID <= 0 {
		t.Fatalf("smallest event id %d (%v): an id wrapped", minID, err)
	}
}
