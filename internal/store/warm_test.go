package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// preparedInserts returns the batch sizes whose INSERT the writer has
// prepared.
func preparedInserts(t *testing.T, s *Store) map[int]bool {
	t.Helper()
	got := map[int]bool{}
	err := s.withRaw(context.Background(), func(wc *writerConn) error {
		for k, st := range wc.inserts {
			if st != nil {
				got[k] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// waitPrepared waits until every batch size up to maxExactRows has its
// INSERT prepared.
func waitPrepared(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := preparedInserts(t, s)
		if len(got) == maxExactRows {
			for k := 1; k <= maxExactRows; k++ {
				if !got[k] {
					t.Fatalf("prepared %v: size %d missing", got, k)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Warm, prepared sizes %v, want 1..%d", got, maxExactRows)
		}
		time.Sleep(time.Millisecond)
	}
}

// fileState is what a write would change: the database and WAL files'
// sizes and modification times.
func fileState(t *testing.T, s *Store) [2]string {
	t.Helper()
	var out [2]string
	for i, p := range []string{s.File(), s.File() + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf("%v %d bytes", fi.ModTime(), fi.Size())
	}
	return out
}

// Warm prepares the INSERT of every batch size in the background and
// writes nothing: no event, no file change. Appends afterwards use the
// prepared statements and store what they should.
func TestWarmPreparesWithoutWriting(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	appendStep(t, s, "a", 1)
	if got := preparedInserts(t, s); len(got) == maxExactRows {
		t.Fatalf("before Warm every size is prepared already (%v): the test shows nothing", got)
	}
	before, _ := s.Events(context.Background(), "a", 0, 0)
	files := fileState(t, s)
	commits, _ := s.Commits()

	s.Warm()
	s.Warm() // a second ask while the first is pending is dropped
	waitPrepared(t, s)

	after, err := s.Events(context.Background(), "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("Warm changed the log: %d events, before %d", len(after), len(before))
	}
	if got := fileState(t, s); got != files {
		t.Errorf("Warm changed the files: %v, before %v", got, files)
	}
	if c, _ := s.Commits(); c != commits {
		t.Errorf("Warm committed: %d commits, before %d", c, commits)
	}
	for n := 1; n <= 3; n++ {
		appendStep(t, s, "a", n+1)
	}
	evs, err := s.Events(context.Background(), "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d after Warm", i, e.Seq)
		}
	}
	if len(evs) <= len(after) {
		t.Errorf("appends after Warm stored nothing (%d events)", len(evs))
	}
}

// An append queued while the committer warms is committed; Close right
// after Warm ends the committer without waiting for the rest of the
// statements (and leaks nothing: TestMain's goleak).
func TestWarmYieldsToAppendsAndClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "a")
	s.Warm()
	if _, errs := appendStep(t, s, "a", 3); errs[0] != nil || errs[2] != nil {
		t.Fatalf("appends queued while warming: %v", errs)
	}
	s.Warm()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close after Warm did not return")
	}
	s.Warm() // after Close: no committer; must not block
}

// BenchmarkWarm is what Warm costs the committer: the append statements
// of every batch size prepared on a fresh writer connection.
func BenchmarkWarm(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s, err := Open(context.Background(), filepath.Join(b.TempDir(), FileName), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s.Warm()
		for {
			n := 0
			_ = s.withRaw(context.Background(), func(wc *writerConn) error { n = len(wc.inserts); return nil })
			if n == maxExactRows {
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}

// Events waiting out the commit delay do not stop the warm-up, and it
// does not hold them: they are committed together once the delay is over
// (one commit), and every statement gets prepared.
func TestWarmDuringCommitDelay(t *testing.T) {
	s := openTest(t, Options{CommitDelay: 200 * time.Millisecond})
	newSession(t, s, "a")
	c0 := s.commits.Load()
	acks := queueAsync(t, s, "a", 5)
	s.Warm()
	waitAcks(t, acks, 5, 30*time.Second)
	if got := s.commits.Load() - c0; got != 1 {
		t.Errorf("5 events queued at once took %d commits with Warm, want 1", got)
	}
	waitPrepared(t, s)
	if _, errs := appendStep(t, s, "a", 12); errs[11] != nil {
		t.Fatal(errs[11])
	}
}
