package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// queueAsync queues n events of session with AppendAsync; their
// acknowledgements arrive on the returned channel.
func queueAsync(t *testing.T, s *Store, session string, n int) chan error {
	t.Helper()
	acks := make(chan error, n)
	for i := range n {
		p, _ := json.Marshal(map[string]int{"i": i})
		if err := s.AppendAsync(context.Background(), &EventRecord{Session: session, Type: "x", Payload: p}, func(err error) { acks <- err }); err != nil {
			t.Fatal(err)
		}
	}
	return acks
}

// waitAcks waits for n acknowledgements, failing after a generous bound
// (the delay under test is far shorter or never reached).
func waitAcks(t *testing.T, acks chan error, n int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for i := range n {
		select {
		case err := <-acks:
			if err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
		case <-deadline:
			t.Fatalf("%d of %d events acknowledged within %s", i, n, within)
		}
	}
}

// Events queued with AppendAsync within the commit delay share one
// transaction; the delay runs from the first of them, not the last.
func TestCommitDelayGroupsAsyncEvents(t *testing.T) {
	s := openTest(t, Options{CommitDelay: 500 * time.Millisecond})
	newSession(t, s, "a")
	c0 := s.commits.Load()
	acks := queueAsync(t, s, "a", 12)
	select {
	case <-acks:
		t.Fatal("an event was acknowledged before the commit delay ended")
	case <-time.After(50 * time.Millisecond):
	}
	waitAcks(t, acks, 12, 30*time.Second)
	if got := s.commits.Load() - c0; got != 1 {
		t.Fatalf("12 events queued at once took %d commits, want 1", got)
	}
}

// Flush and Append never wait for the delay, and what AppendAsync queued
// before them goes into their commit.
func TestCommitDelayFlushAndAppendCommitAtOnce(t *testing.T) {
	s := openTest(t, Options{CommitDelay: time.Hour})
	newSession(t, s, "a")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	acks := queueAsync(t, s, "a", 5)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	waitAcks(t, acks, 5, time.Second) // acknowledged before Flush returned
	acks = queueAsync(t, s, "a", 3)
	rec := &EventRecord{Session: "a", Type: "x", Payload: json.RawMessage(`{}`)}
	if err := s.Append(ctx, rec); err != nil {
		t.Fatal(err)
	}
	waitAcks(t, acks, 3, time.Second)
	if rec.Seq != 9 {
		t.Fatalf("Append after 8 queued events stored at seq %d, want 9", rec.Seq)
	}
	if n, err := s.LastSeq(ctx, "a"); err != nil || n != 9 {
		t.Fatalf("stored up to seq %d (%v), want 9", n, err)
	}
}

// Close commits what is still waiting for the delay.
func TestCommitDelayCloseCommits(t *testing.T) {
	path := t.TempDir() + "/" + FileName
	s, err := Open(context.Background(), path, Options{CommitDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "a")
	acks := queueAsync(t, s, "a", 7)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitAcks(t, acks, 7, time.Second)
	re, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if n, err := re.LastSeq(context.Background(), "a"); err != nil || n != 7 {
		t.Fatalf("after Close: stored up to seq %d (%v), want 7", n, err)
	}
}
