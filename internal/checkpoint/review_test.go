package checkpoint

import (
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// twoRuns writes a.txt (two hunks) and b.txt in run 1, then c.txt and
// a.txt again (one hunk) in run 2.
func twoRuns(e *env) (id1, id2 string) {
	e.put("a.txt", numbered(1, 20))
	e.put("b.txt", "b\n")
	e.put("c.txt", numbered(1, 20))
	run1 := e.begin()
	id1 = e.write(run1, "a.txt", replaceLine(replaceLine(numbered(1, 20), 2, "r1 2\n"), 18, "r1 18\n"))
	e.write(run1, "b.txt", "b1\n")
	e.report(run1)
	run2 := e.begin()
	id2 = e.write(run2, "c.txt", replaceLine(replaceLine(numbered(1, 20), 3, "r2 3\n"), 15, "r2 15\n"))
	e.write(run2, "a.txt", replaceLine(replaceLine(replaceLine(numbered(1, 20), 2, "r1 2\n"), 18, "r1 18\n"), 10, "r2 10\n"))
	e.report(run2)
	return id1, id2
}

func TestReviewOverCheckpoints(t *testing.T) {
	e := newEnv(t)
	id1, id2 := twoRuns(e)
	// Given newest first, the review still orders checkpoints oldest first.
	files, err := e.m.Review(e.ctx, []string{id2, id1, id2})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path+"@"+map[string]string{id1: "1", id2: "2"}[f.CheckpointID])
	}
	// a.txt keeps its first place but shows run 2's snapshot: its one hunk.
	if got := strings.Join(paths, " "); got != "a.txt@2 b.txt@1 c.txt@2" {
		t.Fatalf("review order %s", got)
	}
	if a := files[0]; len(a.Hunks) != 1 || a.Hunks[0].NewText != "r2 10\n" || a.Hunks[0].OldText != "line 10\n" ||
		a.Hunks[0].NewStart != 10 || a.Hunks[0].OldStart != 10 || len(a.EarlierCheckpoints) != 1 || a.EarlierCheckpoints[0] != id1 {
		t.Errorf("a.txt entry %+v", a)
	}
	// Once run 2's a.txt is resolved, run 1's shows.
	e.keep(Selector{Checkpoint: id2, Path: "a.txt"})
	files, _ = e.m.Review(e.ctx, []string{id1, id2})
	if files[0].Path != "a.txt" || files[0].CheckpointID != id1 || len(files[0].Hunks) != 2 {
		t.Errorf("after keeping run 2's a.txt: %+v", files[0])
	}
}

func TestReviewSessionNavigation(t *testing.T) {
	e := newEnv(t)
	id1, id2 := twoRuns(e)
	r := e.m.NewReviewSession()
	pos, err := r.Start(e.ctx, id1)
	if err != nil {
		t.Fatal(err)
	}
	// Run 1 alone: a.txt (2 hunks) and b.txt (1).
	if pos.Current != 1 || pos.Total != 3 || pos.FilePath != "a.txt" || pos.Hunk != 1 {
		t.Fatalf("start %+v", pos)
	}
	pos, _ = r.Navigate(e.ctx, NextChange, id1)
	pos, _ = r.Navigate(e.ctx, NextChange, id1)
	if pos.Current != 3 || pos.FilePath != "b.txt" {
		t.Fatalf("after two steps %+v", pos)
	}
	// Navigating with a checkpoint the review already has never rebuilds
	// nor resets the position (pitfall #17), even when files changed.
	e.write(e.m.Begin(e.session, 9), "zzz.txt", "new\n")
	pos, _ = r.Navigate(e.ctx, NextChange, id1)
	if pos.Current != 1 || pos.Total != 3 {
		t.Fatalf("wrap %+v", pos)
	}
	pos, _ = r.Navigate(e.ctx, PrevChange)
	if pos.Current != 3 || pos.FilePath != "b.txt" {
		t.Fatalf("prev wrap %+v", pos)
	}
	// A new checkpoint merges in and rebuilds, keeping the position on
	// b.txt (pitfall #24) although a.txt now has one hunk and c.txt joined.
	pos, err = r.Navigate(e.ctx, NextFile, id2)
	if err != nil {
		t.Fatal(err)
	}
	if pos.Total != 4 || pos.FilePath != "c.txt" || pos.Current != 3 {
		t.Fatalf("after merging run 2 and next file %+v", pos)
	}
	if got := r.CheckpointIDs(); len(got) != 2 {
		t.Errorf("review covers %v", got)
	}
	// Keep c.txt's first hunk: the position stays on c.txt, now on its
	// remaining hunk, and the total drops (pitfall #23).
	_, pos, err = r.Keep(e.ctx, "c.txt", 1)
	if err != nil {
		t.Fatal(err)
	}
	if pos.Total != 3 || pos.FilePath != "c.txt" || pos.Current != 3 || pos.Hunk != 1 {
		t.Fatalf("after keeping a hunk %+v", pos)
	}
	// Undo the whole file: the position moves to the file after it
	// (wrapping to the first).
	_, pos, err = r.Undo(e.ctx, "c.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if pos.Total != 2 || pos.FilePath != "a.txt" || pos.Current != 1 {
		t.Fatalf("after undoing the file %+v", pos)
	}
	// Resolving a file before the current one keeps the current file.
	if _, err := r.Focus(e.ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	_, pos, _ = r.Keep(e.ctx, "a.txt", 0)
	if pos.FilePath != "b.txt" || pos.Current != 3 || pos.Total != 3 {
		// a.txt of run 1 comes back once run 2's copy is kept.
		t.Fatalf("after keeping an earlier file %+v", pos)
	}
	if _, _, err := r.Keep(e.ctx, "nope.txt", 0); err == nil {
		t.Error("keeping a file outside the review succeeded")
	}
}

// Concurrent starts (one per checkpoint, as frontends send them) end with
// a review covering all of them (pitfall #16).
func TestConcurrentStartsMerge(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := 0; i < 6; i++ {
		run := e.begin()
		ids = append(ids, e.write(run, "f"+itoaT(i)+".txt", "x\n"))
		e.report(run)
	}
	r := e.m.NewReviewSession()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.Start(e.ctx, id); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if pos := r.Position(); pos.Total != 6 || len(r.Files()) != 6 || len(r.CheckpointIDs()) != 6 {
		t.Fatalf("after concurrent starts: %+v, %d files", pos, len(r.Files()))
	}
}

func TestUnified(t *testing.T) {
	e := newEnv(t)
	e.put("f.txt", "a\nb\nc\nd\ne\nf\ng\nh\n")
	e.put("tail.txt", "x\ny")
	run := e.begin()
	id := e.write(run, "f.txt", "a\nB\nc\nd\ne\nf\ng\nh\ni\n")
	e.write(run, "tail.txt", "x\nz")
	e.write(run, "new.txt", "hello\n")
	e.write(run, "blob.bin", "\x00\x01")
	e.report(run)
	tests := []struct {
		path string
		want string
	}{
		{"f.txt", "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@ hunk 1\n a\n-b\n+B\n c\n d\n e\n@@ -6,3 +6,4 @@ hunk 2\n f\n g\n h\n+i\n"},
		{"tail.txt", "--- a/tail.txt\n+++ b/tail.txt\n@@ -1,2 +1,2 @@ hunk 1\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n"},
		{"new.txt", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@ hunk 1\n+hello\n"},
		{"blob.bin", "--- /dev/null\n+++ b/blob.bin\n@@ hunk 1: binary file, +1 −0 lines; keep or undo it as a whole @@\n"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := Unified(e.fileReview(id, tt.path)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
