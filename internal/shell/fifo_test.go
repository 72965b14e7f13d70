package shell

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOutputFIFOUsedAgainOnlyWhenFree: a command's output FIFO is used
// again for the bash's next command only when every process that had it
// let go; a job still holding it keeps only its own command's output
// (the next command gets a FIFO of its own), and a link or file a
// command put in its place is neither followed nor used.
func TestOutputFIFOUsedAgainOnlyWhenFree(t *testing.T) {
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "echo a", RunOptions{})
	kept := sh.proc.spareFifo
	if kept == "" {
		t.Fatal("the FIFO of a command whose output ended was not kept")
	}
	if res := mustRun(t, sh, "echo b", RunOptions{}); res.Output != "b" || sh.proc.spareFifo != kept {
		t.Fatalf("the FIFO was not used again (%q, then %q): %s", kept, sh.proc.spareFifo, res.Text())
	}
	bg := mustRun(t, sh, "(sleep 0.5; echo late) & echo now", RunOptions{})
	if bg.Output != "now" || bg.BackgroundLog == "" || sh.proc.spareFifo != "" {
		t.Fatalf("a FIFO a job still holds was kept (%q): %s", sh.proc.spareFifo, bg.Text())
	}
	if next := mustRun(t, sh, "echo next; sleep 1", RunOptions{}); next.Output != "next" {
		t.Errorf("the job's output reached the next command: %q", next.Output)
	}
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(bg.BackgroundLog); string(b) != "late\n"; b, _ = os.ReadFile(bg.BackgroundLog) {
		if time.Now().After(deadline) {
			t.Fatalf("background log = %q, want \"late\\n\"", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A command replaces its own FIFO with a link to a file, then with a
	// file: the next command neither follows nor uses either.
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("original\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, plant := range []string{`ln -s "` + target + `" "$f"`, `echo planted > "$f"`} {
		res := mustRun(t, sh, `f=$(readlink /proc/$$/fd/1); echo x; rm -f "$f"; `+plant, RunOptions{})
		if res.Output != "x" {
			t.Fatalf("%s", res.Text())
		}
		if next := mustRun(t, sh, "echo after", RunOptions{}); next.Output != "after" {
			t.Errorf("after %s: the next command's output: %s", plant, next.Text())
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestRequestFileLinkNotFollowed: olly writes each request into the
// request file it made when the bash started; a command that puts a link
// (or a file) at its path makes olly write nowhere else, and the session
// goes on (its bash, which reads what is at the path, is replaced when
// that is not olly's request).
func TestRequestFileLinkNotFollowed(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("original\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, plant := range []string{`ln -s "` + target + `" "$__olly_d/req"`, `echo planted > "$__olly_d/req"`} {
		mustRun(t, sh, `rm -f "$__olly_d/req"; `+plant, RunOptions{})
		for i := range 2 {
			if res := mustRun(t, sh, "echo after", RunOptions{}); res.Output != "after" {
				t.Errorf("after %s, command %d: %s", plant, i, res.Text())
			}
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}
