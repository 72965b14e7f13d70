package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// ftsCheck runs FTS5's own consistency check of the events index against
// the events table.
func ftsCheck(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.w.Exec("INSERT INTO events_fts(events_fts) VALUES ('integrity-check')"); err != nil {
		t.Fatalf("events index inconsistent: %v", err)
	}
}

func ftsCursor(t *testing.T, s *Store) int64 {
	t.Helper()
	var c int64
	if err := s.r.QueryRow(`SELECT last_event_id FROM fts_state WHERE id = 1`).Scan(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSearchSeesEveryEventAppendedBeforeIt(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "s")
	for i := 0; i < 50; i++ {
		appendText(t, s, "s", "assistant_message", "plain words")
	}
	appendText(t, s, "s", "assistant_message", "the quokka appears last")
	// No waiting: the append path does not index, the search flushes.
	res, err := s.Search(ctx, SearchQuery{Text: "quokka"})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("search right after append: %+v %v", res, err)
	}
	ftsCheck(t, s)
}

func TestIndexingIsBehindTheAppendPath(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "s")
	before := ftsCursor(t, s)
	appendText(t, s, "s", "assistant_message", "not indexed yet")
	// The committer waits ftsDelay before indexing; right after the append
	// the cursor has not moved (the append did not pay for the index).
	if got := ftsCursor(t, s); got != before {
		t.Skipf("the committer indexed within the append (cursor %d → %d); only possible if the timer already fired", before, got)
	}
	if err := s.flushFTS(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ftsCursor(t, s); got <= before {
		t.Fatalf("flush did not advance the cursor: %d", got)
	}
}

func TestDeletingUnindexedEventsKeepsTheIndexConsistent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	newSession(t, s, "b")
	appendText(t, s, "a", "user_message", "indexed words")
	if err := s.flushFTS(ctx); err != nil {
		t.Fatal(err)
	}
	appendText(t, s, "a", "user_message", "pending words") // not indexed yet
	appendText(t, s, "b", "user_message", "pending words too")
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	ftsCheck(t, s)
	res, err := s.Search(ctx, SearchQuery{Text: "pending"})
	if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Session.ID != "b" {
		t.Fatalf("after delete: %+v %v", res, err)
	}
	ftsCheck(t, s)
}

func TestReopenIndexesWhatAnEarlierProcessLeftPending(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "s")
	appendText(t, s, "s", "user_message", "wombat")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Simulate a process that died before its committer indexed: the
	// index and its cursor are back to before the event.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE fts_state SET last_event_id = 0`, `INSERT INTO events_fts(events_fts) VALUES ('delete-all')`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ftsCursor(t, s) == 0 {
		t.Fatal("open did not catch the index up")
	}
	ftsCheck(t, s)
	res, err := s.Search(ctx, SearchQuery{Text: "wombat"})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
}
