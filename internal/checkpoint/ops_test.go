package checkpoint

import (
	"errors"
	"os"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// threeHunks returns a 30-line original and a version with three separate
// changes (lines 2, 15 and 28), far enough apart to be independent hunks.
func threeHunks() (orig, agent string) {
	orig = numbered(1, 30)
	agent = numbered(1, 1) + "agent 2\n" + numbered(3, 14) + "agent 15a\nagent 15b\n" + numbered(16, 27) + numbered(29, 30)
	return orig, agent
}

func TestKeepAndUndoHunks(t *testing.T) {
	orig, agent := threeHunks()
	tests := []struct {
		name    string
		ops     func(e *env, id string)
		want    string // the file afterwards
		status  store.FileStatus
		ckpt    store.CheckpointStatus
		hunks   int // left to review
		origNow string
	}{
		{"undo the middle hunk", func(e *env, id string) {
			e.undo(Selector{Checkpoint: id, Path: "f.txt", Hunk: 2})
		}, numbered(1, 1) + "agent 2\n" + numbered(3, 27) + numbered(29, 30), store.FilePending, store.CheckpointPending, 2, orig},
		{"keep the first hunk", func(e *env, id string) {
			e.keep(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
		}, agent, store.FilePending, store.CheckpointPending, 2, numbered(1, 1) + "agent 2\n" + numbered(3, 30)},
		{"undo every hunk one by one", func(e *env, id string) {
			for i := 0; i < 3; i++ {
				e.undo(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
			}
		}, orig, store.FileUndone, store.CheckpointUndone, 0, orig},
		{"keep every hunk one by one", func(e *env, id string) {
			for i := 3; i >= 1; i-- {
				e.keep(Selector{Checkpoint: id, Path: "f.txt", Hunk: i})
			}
		}, agent, store.FileKept, store.CheckpointKept, 0, ""},
		{"mixed hunks make the file and the checkpoint partial", func(e *env, id string) {
			e.keep(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
			e.undo(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
			e.keep(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
		}, numbered(1, 1) + "agent 2\n" + numbered(3, 27) + numbered(29, 30), store.FilePartial, store.CheckpointPartial, 0, numbered(1, 1) + "agent 2\n" + numbered(3, 27) + numbered(29, 30)},
		{"undo the file after keeping a hunk keeps that hunk", func(e *env, id string) {
			e.keep(Selector{Checkpoint: id, Path: "f.txt", Hunk: 3})
			e.undo(Selector{Checkpoint: id, Path: "f.txt"})
		}, numbered(1, 27) + numbered(29, 30), store.FilePartial, store.CheckpointPartial, 0, numbered(1, 27) + numbered(29, 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.put("f.txt", orig)
			run := e.begin()
			id := e.write(run, "f.txt", agent)
			e.report(run)
			tt.ops(e, id)
			if got := e.read("f.txt"); got != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			s := e.snapshot(id, "f.txt")
			if s.Status != tt.status {
				t.Errorf("file status %s, want %s", s.Status, tt.status)
			}
			if tt.status != store.FileKept && string(s.OriginalContent) != tt.origNow {
				t.Errorf("original now:\n%s\nwant:\n%s", s.OriginalContent, tt.origNow)
			}
			if tt.status == store.FileKept && (s.OriginalContent != nil || s.WrittenContent != nil) {
				t.Error("a kept file's contents were not pruned")
			}
			c, _ := e.st.Checkpoint(e.ctx, id)
			if c.Status != tt.ckpt {
				t.Errorf("checkpoint status %s, want %s", c.Status, tt.ckpt)
			}
			files, err := e.m.Review(e.ctx, []string{id})
			if err != nil {
				t.Fatal(err)
			}
			left := 0
			for _, f := range files {
				left += len(f.Hunks)
			}
			if left != tt.hunks {
				t.Errorf("%d hunks left, want %d", left, tt.hunks)
			}
		})
	}
}

func TestHunkStatsAndEvents(t *testing.T) {
	e := newEnv(t)
	orig, agent := threeHunks()
	e.put("f.txt", orig)
	e.put("g.txt", "g\n")
	run := e.begin()
	id := e.write(run, "f.txt", agent)
	e.write(run, "g.txt", "g2\n")
	e.report(run)
	e.rec.take()

	o := e.undo(Selector{Checkpoint: id, Path: "f.txt", Hunk: 2})
	if f := o.Files[0]; f.Resolved || f.Additions != 1 || f.Deletions != 2 {
		t.Errorf("outcome %+v", f)
	}
	evs := e.rec.take()
	if len(evs) != 2 {
		t.Fatalf("events %+v", evs)
	}
	if r := evs[0].(event.FileChangeResult); r.FilePath != "f.txt" || r.Hunk != 2 || !r.Success || r.Resolved || r.Action != "undo" {
		t.Errorf("file_change_result %+v", r)
	}
	if fc := evs[1].(event.FilesChanged); len(fc.Files) != 1 || fc.Files[0].Additions != 1 || fc.Files[0].Deletions != 2 || fc.Status != "pending" {
		t.Errorf("files_changed %+v", fc)
	}
	c, _ := e.st.Checkpoint(e.ctx, id)
	if c.TotalAdditions != 2 || c.TotalDeletions != 3 {
		t.Errorf("checkpoint totals +%d −%d, want +2 −3", c.TotalAdditions, c.TotalDeletions)
	}
	stats, _ := e.st.PendingStats(e.ctx)
	if stats[e.session] != (store.DiffStats{Additions: 2, Deletions: 3, Files: 2}) {
		t.Errorf("session stats %+v", stats[e.session])
	}

	// f.txt had a hunk undone, so keeping the rest leaves it partial.
	o = e.keep(Selector{Checkpoint: id})
	if o.Status != store.CheckpointPartial || len(o.Files) != 2 || o.Files[0].Status != store.FilePartial || o.Files[1].Status != store.FileKept {
		t.Errorf("keep all: %+v", o)
	}
	evs = e.rec.take()
	if len(evs) != 1 {
		t.Fatalf("keep all emitted %+v", evs)
	}
	if r := evs[0].(event.KeepUndoResult); !r.Success || r.Action != "keep" || r.CheckpointID != id {
		t.Errorf("keep_undo_result %+v", r)
	}
	stats, _ = e.st.PendingStats(e.ctx)
	if _, ok := stats[e.session]; ok {
		t.Errorf("session still has pending stats %+v", stats[e.session])
	}
}

func TestCreatedFilesAndDirectories(t *testing.T) {
	e := newEnv(t)
	e.put("keep/mine.txt", "mine\n")
	run := e.begin()
	id := e.write(run, "a/b/c/new.go", "package c\n")
	e.write(run, "a/b/sibling.go", "package b\n")
	e.write(run, "keep/theirs.go", "x\n")
	e.write(run, "empty.txt", "")
	e.report(run)

	// A file the person added to a directory olly created keeps it.
	e.put("a/person.txt", "p\n")
	o := e.undo(Selector{Checkpoint: id})
	if o.Status != store.CheckpointUndone || len(o.Conflicts()) != 0 {
		t.Fatalf("undo all: %+v", o)
	}
	for _, p := range []string{"a/b/c/new.go", "a/b/sibling.go", "keep/theirs.go", "empty.txt", "a/b/c", "a/b"} {
		if _, err := os.Lstat(e.abs(p)); !os.IsNotExist(err) {
			t.Errorf("%s still exists (%v)", p, err)
		}
	}
	for _, p := range []string{"a/person.txt", "keep/mine.txt"} {
		if _, err := os.Lstat(e.abs(p)); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}

func TestWholeFileOnly(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(e.abs("img.bin"), []byte{0x89, 'P', 'N', 'G', 0, 1}, 0o640); err != nil {
		t.Fatal(err)
	}
	// The mode undo must restore, whatever the umask (077 made it 0600).
	if err := os.Chmod(e.abs("img.bin"), 0o640); err != nil {
		t.Fatal(err)
	}
	run := e.begin()
	id := e.write(run, "img.bin", "\x00\x02binary")
	e.write(run, "new.bin", "\x00new")
	e.write(run, "empty.txt", "")
	e.report(run)
	for _, p := range []string{"img.bin", "new.bin", "empty.txt"} {
		if _, err := e.m.Undo(e.ctx, Selector{Checkpoint: id, Path: p, Hunk: 1}); !errors.Is(err, ErrWholeFileOnly) {
			t.Errorf("undo hunk 1 of %s: %v, want ErrWholeFileOnly", p, err)
		}
		if fr := e.fileReview(id, p); len(fr.Hunks) != 1 || !fr.Hunks[0].WholeFile {
			t.Errorf("%s review %+v", p, fr)
		}
	}
	e.undo(Selector{Checkpoint: id, Path: "img.bin"})
	info, err := os.Stat(e.abs("img.bin"))
	if got := e.read("img.bin"); got != "\x89PNG\x00\x01" || err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("binary after undo %q (%v, %v)", got, info.Mode(), err)
	}
	e.keep(Selector{Checkpoint: id, Path: "new.bin"})
	if got := e.read("new.bin"); got != "\x00new" {
		t.Errorf("kept binary %q", got)
	}
}

func TestBadRequests(t *testing.T) {
	e := newEnv(t)
	orig, agent := threeHunks()
	e.put("f.txt", orig)
	run := e.begin()
	id := e.write(run, "f.txt", agent)
	e.report(run)
	tests := []struct {
		name string
		sel  Selector
		want error
	}{
		{"hunk zero of nothing", Selector{Checkpoint: id, Hunk: 1}, nil},
		{"hunk past the end", Selector{Checkpoint: id, Path: "f.txt", Hunk: 4}, ErrNoSuchHunk},
		{"negative hunk", Selector{Checkpoint: id, Path: "f.txt", Hunk: -1}, ErrNoSuchHunk},
		{"unknown file", Selector{Checkpoint: id, Path: "nope.txt"}, store.ErrNotFound},
		{"unknown checkpoint", Selector{Checkpoint: "nope", Path: "f.txt"}, store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.m.Undo(e.ctx, tt.sel)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
	if got := e.read("f.txt"); got != agent {
		t.Error("a refused request changed the file")
	}
	e.keep(Selector{Checkpoint: id, Path: "f.txt"})
	if _, err := e.m.Undo(e.ctx, Selector{Checkpoint: id, Path: "f.txt"}); !errors.Is(err, ErrResolved) {
		t.Errorf("undo of a kept file: %v, want ErrResolved", err)
	}
}
