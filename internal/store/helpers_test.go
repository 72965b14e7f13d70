package store

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// Children re-executed by the crash and multi-process tests run their
	// role and exit before the leak check.
	if role := os.Getenv(childRoleEnv); role != "" {
		os.Exit(runChild(role))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		for _, f := range benchCleanup {
			f()
		}
		os.Exit(code)
	}))
}

// benchCleanup removes benchmark fixtures when the test binary ends.
var benchCleanup []func()

// openTest opens a store in a temporary directory, closed at cleanup.
func openTest(t testing.TB, opts ...Options) *Store {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), FileName), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// newSession creates a session in workspace /work/<name>.
func newSession(t testing.TB, s *Store, id string) *Session {
	t.Helper()
	sess := &Session{ID: id, Title: "session " + id, Workspace: "/work/ws"}
	if err := s.CreateSession(context.Background(), sess); err != nil {
		t.Fatalf("CreateSession(%s): %v", id, err)
	}
	return sess
}

// appendText appends an event of type typ carrying text as both payload
// and search text.
func appendText(t testing.TB, s *Store, session, typ, text string) *EventRecord {
	t.Helper()
	payload, _ := json.Marshal(map[string]string{"text": text})
	rec := &EventRecord{Session: session, Type: typ, Payload: payload, Text: text}
	if err := s.Append(context.Background(), rec); err != nil {
		t.Fatalf("Append(%s, %q): %v", session, text, err)
	}
	return rec
}

// clock is a settable time source for Options.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// newRand returns a deterministic source for test data.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// bulkInsert writes events straight into the log in large transactions
// (fixture building; Append's path is measured by BenchmarkAppend).
func bulkInsert(tb testing.TB, s *Store, recs []*EventRecord) {
	tb.Helper()
	ctx := context.Background()
	heads := map[string]int64{}
	for start := 0; start < len(recs); start += 5000 {
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			tb.Fatal(err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO events
			(session_id, seq, parent_seq, turn, type, payload, text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range recs[start:min(start+5000, len(recs))] {
			if r.Seq == 0 {
				r.Seq = heads[r.Session] + 1
				r.ParentSeq = r.Seq - 1
			}
			heads[r.Session] = max(heads[r.Session], r.Seq)
			if _, err := stmt.Exec(r.Session, r.Seq, r.ParentSeq, r.Turn, r.Type, string(r.Payload), nullString(r.Text), time.Now().UnixMilli()); err != nil {
				tb.Fatal(err)
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
		// The committer indexes the text, as it does after appends.
		if err := s.flushFTS(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	for id, h := range heads {
		if _, err := s.w.Exec(`UPDATE sessions SET leaf_seq = ? WHERE id = ?`, h, id); err != nil {
			tb.Fatal(err)
		}
	}
}
