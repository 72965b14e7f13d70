package checkpoint

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

var _ tools.Snapshotter = (*Run)(nil)

func TestRunIsLazy(t *testing.T) {
	e := newEnv(t)
	run := e.begin()
	if run.ID() != "" {
		t.Fatal("a run with no write has a checkpoint")
	}
	if p := e.report(run); p != nil {
		t.Fatalf("Report without writes = %+v", p)
	}
	cps, err := e.st.Checkpoints(e.ctx, e.session)
	if err != nil || len(cps) != 0 {
		t.Fatalf("checkpoints %v, %v; want none", cps, err)
	}
}

func TestSnapshotBeforeFirstWrite(t *testing.T) {
	e := newEnv(t)
	e.put("mod.txt", "one\ntwo\n")
	if err := os.Chmod(e.abs("mod.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	bin := []byte{0, 1, 2, 0xff, '\n', 0}
	if err := os.WriteFile(e.abs("blob.bin"), bin, 0o600); err != nil {
		t.Fatal(err)
	}
	run := e.begin()
	id := e.write(run, "mod.txt", "one\n2\n")
	if id == "" || run.ID() != id {
		t.Fatalf("BeforeWrite returned %q, run ID %q", id, run.ID())
	}
	e.write(run, "mod.txt", "one\ntwo and a half\n") // a second write keeps the first snapshot
	e.write(run, "blob.bin", "text now\n")
	e.write(run, "new/deep/file.go", "package deep\n")
	e.write(run, "new/other.go", "package new\n") // its directory exists by now

	tests := []struct {
		name     string
		path     string
		existed  bool
		original []byte
		mode     os.FileMode
		dirs     []string
	}{
		{"modified keeps the first original and mode", "mod.txt", true, []byte("one\ntwo\n"), 0o751, nil},
		{"binary original byte for byte", "blob.bin", true, bin, 0o600, nil},
		{"created records its new directories deepest first", "new/deep/file.go", false, nil, 0, []string{"new/deep", "new"}},
		{"created in a directory olly made earlier", "new/other.go", false, nil, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := e.snapshot(id, tt.path)
			if s.Existed != tt.existed || !bytes.Equal(s.OriginalContent, tt.original) || s.OriginalMode != tt.mode ||
				!slices.Equal(s.CreatedDirs, tt.dirs) || s.Status != store.FilePending {
				t.Errorf("snapshot %+v (original %q)", s, s.OriginalContent)
			}
		})
	}
	p := e.report(run)
	if p == nil || p.CheckpointID != id || p.Status != "pending" || len(p.Files) != 4 {
		t.Fatalf("Report = %+v", p)
	}
	want := map[string]event.ChangedFile{
		"mod.txt":          {Path: "mod.txt", Action: "modified", Additions: 1, Deletions: 1, Status: "pending"},
		"blob.bin":         {Path: "blob.bin", Action: "modified", Additions: 1, Deletions: 2, Status: "pending"},
		"new/deep/file.go": {Path: "new/deep/file.go", Action: "created", Additions: 1, Status: "pending"},
		"new/other.go":     {Path: "new/other.go", Action: "created", Additions: 1, Status: "pending"},
	}
	for _, f := range p.Files {
		if f != want[f.Path] {
			t.Errorf("files_changed entry %+v, want %+v", f, want[f.Path])
		}
	}
	evs := e.rec.take()
	if len(evs) != 1 || evs[0].EventType() != event.TypeFilesChanged {
		t.Fatalf("emitted %v", evs)
	}
	if s := e.snapshot(id, "mod.txt"); string(s.WrittenContent) != "one\ntwo and a half\n" {
		t.Errorf("written content %q", s.WrittenContent)
	}
	c, _ := e.st.Checkpoint(e.ctx, id)
	if c.TotalAdditions != 4 || c.TotalDeletions != 3 || c.Turn != 1 || c.SessionID != e.session {
		t.Errorf("checkpoint %+v", c)
	}
	stats, err := e.st.PendingStats(e.ctx)
	if err != nil || stats[e.session] != (store.DiffStats{Additions: 4, Deletions: 3, Files: 4}) {
		t.Errorf("session stats %+v, %v", stats[e.session], err)
	}
	// Nothing new to report.
	if p := e.report(run); p != nil {
		t.Errorf("second Report = %+v", p)
	}
}

func TestRunsGetOrderedIDs(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := 0; i < 50; i++ {
		run := e.begin()
		ids = append(ids, e.write(run, "f.txt", numbered(1, i+1)))
	}
	if !slices.IsSorted(ids) {
		t.Fatalf("checkpoint ids out of order: %v", ids)
	}
}

// A snapshot the person resolved while the run went on is taken again on
// the next write, so that write is undoable too.
func TestWriteAfterResolvedSnapshotIsUndoable(t *testing.T) {
	e := newEnv(t)
	e.put("a.txt", "v0\n")
	run := e.begin()
	id := e.write(run, "a.txt", "v1\n")
	e.report(run)
	e.keep(Selector{Checkpoint: id, Path: "a.txt"})
	e.write(run, "a.txt", "v2\n")
	e.report(run)
	if s := e.snapshot(id, "a.txt"); s.Status != store.FilePending || string(s.OriginalContent) != "v1\n" {
		t.Fatalf("re-snapshot %+v (original %q)", s, s.OriginalContent)
	}
	e.undo(Selector{Checkpoint: id, Path: "a.txt"})
	if got := e.read("a.txt"); got != "v1\n" {
		t.Errorf("after undo the file reads %q, want the kept v1", got)
	}
}

func TestPathsOutsideTheRootAreAbsolute(t *testing.T) {
	e := newEnv(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(outside, "x.txt")
	if got := e.m.RelPath(abs); got != filepath.ToSlash(abs) || e.m.AbsPath(got) != abs {
		t.Errorf("RelPath(%s) = %s", abs, got)
	}
	if got := e.m.RelPath(e.abs("a/b.go")); got != "a/b.go" || e.m.AbsPath(got) != e.abs("a/b.go") {
		t.Errorf("RelPath inside = %s", got)
	}
	if got := e.m.RelPath(filepath.Join(e.root, "..", "..x")); filepath.IsAbs(filepath.FromSlash(got)) == false {
		t.Errorf("a sibling of the root came out relative: %s", got)
	}
}
