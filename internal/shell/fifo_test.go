package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
// request file it made, through its own descriptor, and bash reads it
// through the one it was started with; a command that puts a link (or a
// file) at its path changes neither: the same bash reads olly's requests
// (it is not replaced), both still hold the file olly made, and the
// link's target is not written.
func TestRequestFileLinkNotFollowed(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("original\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, plant := range []string{`ln -s "` + target + `" "$__olly_d/req"`, `echo planted > "$__olly_d/req"`} {
		mustRun(t, sh, `rm -f "$__olly_d/req"; `+plant, RunOptions{})
		pid := sh.proc.pid
		for i := range 2 {
			if res := mustRun(t, sh, "echo after", RunOptions{}); res.Output != "after" {
				t.Errorf("after %s, command %d: %s", plant, i, res.Text())
			}
		}
		if sh.proc.pid != pid {
			t.Errorf("after %s: the bash was replaced (olly did not make its request file afresh)", plant)
		}
		if procListing && !openOn(sh.proc.req, fmt.Sprintf("/proc/%d/fd/11", pid)) {
			t.Errorf("after %s: bash's request descriptor (fd 11) is not the file olly writes", plant)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestJobReadingTheRequestDescriptorIsReplaced: a ( … ) & job inherits
// bash's copy of the request file (fd 11) and its read position: a job
// spinning on it reads each request olly writes, and appends a rewritten
// one with the token it read. What it appends must never run as the
// command olly asked for. bash reads each request through a fresh open
// of that file (/proc/self/fd/11, from its start), so the job's reading
// takes nothing away: the commands run as asked, in the same bash.
func TestJobReadingTheRequestDescriptorIsReplaced(t *testing.T) {
	requireProc(t)
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "echo first", RunOptions{})
	p0 := sh.proc
	hijack, stole := filepath.Join(ws, "hijacked"), filepath.Join(ws, "stole")
	plant := `d=$__olly_d; (exec >/dev/null 2>&1; end=$((SECONDS+8)); while ((SECONDS < end)); do ` +
		`builtin mapfile -d '' -t -u 11 r; ((${#r[@]} >= 6)) || continue; : >>` + stole + `; ` +
		`r[5]=': >` + hijack + `; echo HIJACK'; builtin printf '%s\0' "${r[@]}" >>"$d/req"; done) & echo planted`
	if res := mustRun(t, sh, plant, RunOptions{}); res.Output != "planted" {
		t.Fatalf("plant: %s", res.Text())
	}
	for i := range 3 {
		res := mustRun(t, sh, "echo after", RunOptions{})
		if strings.Contains(res.Output, "HIJACK") {
			t.Errorf("command %d: the job's rewritten request ran: %s", i, res.Text())
		} else if res.Output != "after" {
			t.Errorf("command %d did not run as asked: %s", i, res.Text())
		}
	}
	if _, err := os.Stat(hijack); err == nil {
		t.Error("the job's rewritten request ran")
	}
	if _, err := os.Stat(stole); err != nil {
		t.Log("the job read no request this time (bash read first)")
	}
	if sh.proc != p0 {
		t.Log("the bash was replaced (the job's appended fields spoilt a request)")
	}
}

// TestOutputFIFOWrittenBetweenCommandsIsNotUsedAgain: a job that let go
// of its command's output but kept the FIFO's path writes into it after
// that command's output ended; the bytes must not reach the next
// command's output (the FIFO, with bytes waiting, is dropped and a new
// one made).
func TestOutputFIFOWrittenBetweenCommandsIsNotUsedAgain(t *testing.T) {
	requireProc(t)
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	marker := filepath.Join(ws, "written")
	first := mustRun(t, sh, `f=$(readlink /proc/$$/fd/1); (sleep .3; printf 'ok  \tfake/pkg\n' >"$f"; : >"`+marker+`") >/dev/null 2>&1 & echo first`, RunOptions{})
	if first.Output != "first" {
		t.Fatalf("%s", first.Text())
	}
	kept := sh.proc.spareFifo
	if kept == "" {
		t.Fatal("the FIFO of a command whose output ended was not kept (this test needs it kept)")
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, err := os.Stat(marker); err != nil; _, err = os.Stat(marker) {
		if time.Now().After(deadline) {
			t.Fatal("the job did not write")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fi, err := os.Lstat(kept); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the job did not write into the kept FIFO (%v, %v)", fi, err)
	}
	if res := mustRun(t, sh, "echo FAIL real", RunOptions{}); res.Output != "FAIL real" {
		t.Errorf("what the job wrote between the commands reached the next one: %q", res.Output)
	}
	if sh.proc.spareFifo == kept {
		t.Errorf("the FIFO written between commands was used again (%s)", kept)
	}
	if res := mustRun(t, sh, "echo again", RunOptions{}); res.Output != "again" {
		t.Errorf("the command after: %s", res.Text())
	}
}

// TestOutputFIFOSwappedBetweenOpensIsRefused: a FIFO put in place of a
// new output FIFO between olly's two opens of it (by a job that reads
// it) fails that command; without the check bash would write into the
// job's FIFO while olly read an empty one, for that command and every
// later one of the bash.
func TestOutputFIFOSwappedBetweenOpensIsRefused(t *testing.T) {
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	var thief *os.File
	t.Cleanup(func() {
		betweenOutputOpens = nil
		if thief != nil {
			_ = thief.Close()
		}
	})
	betweenOutputOpens = func(fifo string) {
		betweenOutputOpens = nil
		other := fifo + ".other"
		if err := syscall.Mkfifo(other, 0o600); err != nil {
			t.Error(err)
			return
		}
		var err error
		if thief, err = os.OpenFile(other, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
			t.Error(err)
		}
		if err := os.Rename(other, fifo); err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := sh.Run(ctx, "echo stolen", RunOptions{}); err == nil {
		t.Errorf("a FIFO swapped between the opens was used: %s", res.Text())
	}
	for _, word := range []string{"one", "two"} {
		if res := mustRun(t, sh, "echo "+word, RunOptions{}); res.Output != word {
			t.Errorf("a later command's output: %s", res.Text())
		}
	}
}

// openOn reports whether descriptor fd is open on the file path leads to
// (links followed: /proc/PID/fd/N names another process's descriptor).
func openOn(fd int, path string) bool {
	var a, b syscall.Stat_t
	if syscall.Fstat(fd, &a) != nil || syscall.Stat(path, &b) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}
