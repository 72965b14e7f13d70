//go:build unix

package store

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrashKeepsCommittedEvents kills a child process appending in a tight
// loop at random points, 50 times over the same database, and checks that
// every event whose Append returned (or, for every other child, whose
// AppendAsync callback acknowledged it) is there, that the log has no gap,
// and that the file is sound.
func TestCrashKeepsCommittedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 50 child processes")
	}
	const kills = 50
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "crash")
	s.Close()

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	acked := map[int64]bool{}
	for i := range kills {
		// Most kills land while appends are committing; every fifth is
		// timed from the start, so some land in Open.
		fromStart := i%5 == 0
		d := time.Duration(rng.IntN(60)) * time.Millisecond
		if fromStart {
			d = time.Duration(rng.IntN(150)) * time.Millisecond
		}
		for _, seq := range runAndKill(t, path, d, fromStart, i%2 == 1) {
			acked[seq] = true
		}
	}
	if len(acked) == 0 {
		t.Fatal("no append ever returned: the children never got going")
	}

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("open after crashes: %v", err)
	}
	defer s.Close()
	var integrity string
	if err := s.r.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check: %q %v", integrity, err)
	}
	if _, err := s.w.Exec("INSERT INTO events_fts(events_fts) VALUES ('integrity-check')"); err != nil {
		t.Fatalf("FTS index inconsistent after crashes: %v", err)
	}
	evs, err := s.Events(ctx, "crash", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int64]bool{}
	for i, e := range evs {
		stored[e.Seq] = true
		if e.Seq != int64(i+1) || e.ParentSeq != int64(i) {
			t.Fatalf("event %d: seq %d parent %d: the log has a gap or a broken chain", i, e.Seq, e.ParentSeq)
		}
	}
	for seq := range acked {
		if !stored[seq] {
			t.Errorf("event %d was acknowledged but is missing", seq)
		}
	}
	sess, err := s.Session(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	if sess.LeafSeq != int64(len(evs)) {
		t.Errorf("leaf %d, want %d", sess.LeafSeq, len(evs))
	}
	t.Logf("%d kills: %d events stored, %d acknowledged", kills, len(evs), len(acked))
}

// runAndKill starts a crash child, SIGKILLs it d after it started (or
// after its first acknowledgement), and returns the seqs it acknowledged
// (complete lines only). An async child queues with AppendAsync.
func runAndKill(t *testing.T, path string, d time.Duration, fromStart, async bool) []int64 {
	t.Helper()
	mode := "sync"
	if async {
		mode = "async"
	}
	cmd := childCmd(t, "crash", path, "crash", mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []int64)
	first := make(chan struct{})
	go func() {
		signalled := false
		signal := func() {
			if !signalled {
				signalled = true
				close(first)
			}
		}
		defer signal()
		var seqs []int64
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if err != nil { // a fragment without '\n' is not an acknowledgement
				if err != io.EOF {
					t.Errorf("read child output: %v", err)
				}
				lines <- seqs
				return
			}
			seq, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
			if err != nil {
				t.Errorf("child printed %q", line)
				continue
			}
			seqs = append(seqs, seq)
			signal()
		}
	}()
	if !fromStart {
		select {
		case <-first:
		case <-time.After(10 * time.Second):
			t.Fatalf("child acknowledged nothing in 10 s: %s", cmd.Stderr)
		}
	}
	time.Sleep(d)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	seqs := <-lines
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child ended on its own (%v): %s", err, cmd.Stderr)
	}
	return seqs
}
