package checkpoint

import (
	"os"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// replaceLine replaces the line "line n\n" of s.
func replaceLine(s string, n int, with string) string {
	old := "line " + itoaT(n) + "\n"
	if !strings.Contains(s, old) {
		panic("no " + old)
	}
	return strings.Replace(s, old, with, 1)
}

func itoaT(n int) string { return strings.TrimSpace(numbered(n, n)[len("line "):]) }

func TestUndoNeverOverwritesThePersonsEdits(t *testing.T) {
	orig, agent := threeHunks() // agent hunks at lines 2, 15 and 28 of the original
	tests := []struct {
		name      string
		edit      func(agent string) string
		conflicts []int // hunk numbers left in place
		reason    string
		want      func(person string) string // the file after undo of the whole file
	}{
		{
			name: "edit away from every hunk: all undone, the edit stays",
			edit: func(a string) string { return replaceLine(a, 8, "person 8\n") },
			want: func(string) string { return replaceLine(orig, 8, "person 8\n") },
		},
		{
			name: "lines inserted between hunks shift the later ones: still undone by content",
			edit: func(a string) string { return replaceLine(a, 8, "line 8\nperson 8a\nperson 8b\n") },
			want: func(string) string { return replaceLine(orig, 8, "line 8\nperson 8a\nperson 8b\n") },
		},
		{
			name:      "lines inserted at the top are beside a hunk anchored at the start",
			edit:      func(a string) string { return "person top\n" + a },
			conflicts: []int{1},
			reason:    reasonNearby,
			want: func(string) string {
				return "person top\n" + numbered(1, 1) + "agent 2\n" + numbered(3, 30)
			},
		},
		{
			name:      "edit inside a hunk: that hunk stays, the others are undone",
			edit:      func(a string) string { return strings.Replace(a, "agent 15b\n", "person 15b\n", 1) },
			conflicts: []int{2},
			reason:    reasonEdited,
			want: func(string) string {
				return numbered(1, 14) + "agent 15a\nperson 15b\n" + numbered(16, 30)
			},
		},
		{
			name:      "edit right beside a hunk is a conflict for that hunk",
			edit:      func(a string) string { return replaceLine(a, 17, "person 17\n") },
			conflicts: []int{2},
			reason:    reasonNearby,
			want: func(string) string {
				return numbered(1, 14) + "agent 15a\nagent 15b\n" + replaceLine(numbered(16, 30), 17, "person 17\n")
			},
		},
		{
			name:      "the hunk's lines deleted by the person",
			edit:      func(a string) string { return strings.Replace(a, "agent 2\n", "", 1) },
			conflicts: []int{1},
			reason:    reasonEdited,
			want:      func(string) string { return numbered(1, 1) + numbered(3, 30) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.put("f.txt", orig)
			run := e.begin()
			id := e.write(run, "f.txt", agent)
			e.report(run)
			person := tt.edit(agent)
			e.put("f.txt", person)
			e.rec.take()

			o, err := e.m.Undo(e.ctx, Selector{Checkpoint: id, Path: "f.txt"})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, c := range o.Conflicts() {
				got = append(got, c.Hunk)
				if tt.reason != "" && c.Reason != tt.reason {
					t.Errorf("hunk %d reason %q, want %q", c.Hunk, c.Reason, tt.reason)
				}
			}
			if !equalInts(got, tt.conflicts) {
				t.Fatalf("conflicts %v, want %v", got, tt.conflicts)
			}
			after := e.read("f.txt")
			if tt.want != nil && after != tt.want(person) {
				t.Errorf("file after undo:\n%s\nwant:\n%s", after, tt.want(person))
			}
			// Every line the person wrote is still there.
			for _, l := range strings.SplitAfter(person, "\n") {
				if strings.HasPrefix(l, "person") && !strings.Contains(after, l) {
					t.Errorf("the person's line %q was lost", l)
				}
			}
			s := e.snapshot(id, "f.txt")
			evs := e.rec.take()
			r := evs[0].(event.FileChangeResult)
			if len(tt.conflicts) == 0 {
				if s.Status != store.FileUndone || !r.Success || !r.Resolved {
					t.Errorf("status %s, result %+v", s.Status, r)
				}
				return
			}
			if s.Status != store.FilePending || r.Success || r.Resolved || len(r.Conflicts) != len(tt.conflicts) || r.Error == "" {
				t.Errorf("status %s, result %+v", s.Status, r)
			}
			// What is left to review is exactly the conflicting hunks, shown
			// as stale with the reason.
			fr := e.fileReview(id, "f.txt")
			if len(fr.Hunks) != len(tt.conflicts) || !fr.Hunks[0].Stale || fr.Hunks[0].Reason == "" {
				t.Errorf("left for review: %+v", fr.Hunks)
			}
			// Keeping the conflicting hunk resolves the file without
			// touching it.
			e.keep(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
			if e.read("f.txt") != after {
				t.Error("keep changed the file")
			}
			if s := e.snapshot(id, "f.txt"); s.Status != store.FilePartial {
				t.Errorf("status after keeping the conflict: %s, want partial", s.Status)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestUndoHunkConflictChangesNothing(t *testing.T) {
	e := newEnv(t)
	orig, agent := threeHunks()
	e.put("f.txt", orig)
	run := e.begin()
	id := e.write(run, "f.txt", agent)
	e.report(run)
	person := strings.Replace(agent, "agent 2\n", "person 2\n", 1)
	e.put("f.txt", person)
	o, err := e.m.Undo(e.ctx, Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cs := o.Conflicts(); len(cs) != 1 || cs[0].Hunk != 1 || cs[0].Reason != reasonEdited || !strings.Contains(cs[0].String(), "hunk 1") {
		t.Fatalf("conflicts %+v", cs)
	}
	if e.read("f.txt") != person {
		t.Error("a conflicting undo changed the file")
	}
	// The other hunks still undo.
	e.undo(Selector{Checkpoint: id, Path: "f.txt", Hunk: 3})
	if got := e.read("f.txt"); !strings.Contains(got, "line 28\n") || !strings.Contains(got, "person 2\n") {
		t.Errorf("after undoing hunk 3:\n%s", got)
	}
}

func TestFileDeletedByThePerson(t *testing.T) {
	e := newEnv(t)
	e.put("mod.txt", "a\n")
	run := e.begin()
	id := e.write(run, "mod.txt", "b\n")
	e.write(run, "dir/new.txt", "n\n")
	e.report(run)
	if err := os.Remove(e.abs("mod.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.abs("dir/new.txt")); err != nil {
		t.Fatal(err)
	}
	if fr := e.fileReview(id, "mod.txt"); !fr.Deleted || !fr.Hunks[0].Stale || fr.Hunks[0].Reason != reasonDeleted {
		t.Errorf("review of a deleted file: %+v", fr)
	}
	o, err := e.m.Undo(e.ctx, Selector{Checkpoint: id})
	if err != nil {
		t.Fatal(err)
	}
	cs := o.Conflicts()
	if len(cs) != 1 || cs[0].Path != "mod.txt" || cs[0].Reason != reasonDeleted {
		t.Fatalf("conflicts %+v", cs)
	}
	if e.read("mod.txt") != "<missing>" {
		t.Error("undo brought back a file the person deleted")
	}
	// The created file is undone (it is gone anyway), with its directory.
	if _, err := os.Lstat(e.abs("dir")); !os.IsNotExist(err) {
		t.Errorf("the directory olly created is still there: %v", err)
	}
	if s := e.snapshot(id, "dir/new.txt"); s.Status != store.FileUndone {
		t.Errorf("created file status %s", s.Status)
	}
	evs := e.rec.take()
	last := evs[len(evs)-1].(event.KeepUndoResult)
	if last.Success || len(last.Conflicts) != 1 || !strings.HasPrefix(last.Conflicts[0], "mod.txt: ") {
		t.Errorf("keep_undo_result %+v", last)
	}
}

func TestBinaryChangedByThePerson(t *testing.T) {
	e := newEnv(t)
	e.put("b.bin", "\x00one")
	run := e.begin()
	id := e.write(run, "b.bin", "\x00two")
	e.report(run)
	e.put("b.bin", "\x00three")
	o, err := e.m.Undo(e.ctx, Selector{Checkpoint: id, Path: "b.bin"})
	if err != nil {
		t.Fatal(err)
	}
	if cs := o.Conflicts(); len(cs) != 1 || cs[0].Reason != reasonBinary {
		t.Fatalf("conflicts %+v", cs)
	}
	if e.read("b.bin") != "\x00three" {
		t.Error("undo overwrote the person's binary")
	}
}

// Undoing an older checkpoint while a newer one changed the same file
// reverts only what the older run wrote and the newer run left alone.
func TestUndoOlderCheckpointUnderANewerOne(t *testing.T) {
	e := newEnv(t)
	orig, agent := threeHunks()
	e.put("f.txt", orig)
	run1 := e.begin()
	id1 := e.write(run1, "f.txt", agent)
	e.report(run1)
	run2 := e.begin()
	second := strings.Replace(agent, "agent 15b\n", "second 15b\n", 1)
	id2 := e.write(run2, "f.txt", second)
	e.report(run2)

	o := e.undo(Selector{Checkpoint: id1, Path: "f.txt"})
	if cs := o.Conflicts(); len(cs) != 1 || cs[0].Hunk != 2 {
		t.Fatalf("conflicts %+v", cs)
	}
	want := numbered(1, 14) + "agent 15a\nsecond 15b\n" + numbered(16, 30)
	if got := e.read("f.txt"); got != want {
		t.Fatalf("after undoing run 1:\n%s\nwant:\n%s", got, want)
	}
	// Run 2's change is still undoable on its own.
	e.undo(Selector{Checkpoint: id2, Path: "f.txt"})
	if got := e.read("f.txt"); got != numbered(1, 14)+"agent 15a\nagent 15b\n"+numbered(16, 30) {
		t.Fatalf("after undoing run 2:\n%s", got)
	}
	// Now run 1's last hunk applies again.
	e.undo(Selector{Checkpoint: id1, Path: "f.txt"})
	if got := e.read("f.txt"); got != orig {
		t.Fatalf("after undoing everything:\n%s", got)
	}
}

// Something other than a file where the agent's file was (a directory, a
// link) is never removed or overwritten, and does not break the review.
func TestFileReplacedByADirectory(t *testing.T) {
	e := newEnv(t)
	e.put("mod.txt", "a\n")
	run := e.begin()
	id := e.write(run, "mod.txt", "b\n")
	e.write(run, "new.txt", "n\n")
	e.write(run, "other.txt", "o\n")
	e.report(run)
	for _, p := range []string{"mod.txt", "new.txt"} {
		if err := os.Remove(e.abs(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(e.abs("mod.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.txt", e.abs("new.txt")); err != nil {
		t.Fatal(err)
	}
	files, err := e.m.Review(e.ctx, []string{id})
	if err != nil || len(files) != 3 || !files[0].Deleted || files[0].Hunks[0].Reason != reasonIrregular {
		t.Fatalf("review %+v, %v", files, err)
	}
	o, err := e.m.Undo(e.ctx, Selector{Checkpoint: id})
	if err != nil {
		t.Fatal(err)
	}
	if cs := o.Conflicts(); len(cs) != 2 || cs[0].Reason != reasonIrregular || cs[1].Reason != reasonIrregular {
		t.Fatalf("conflicts %+v", cs)
	}
	if info, err := os.Lstat(e.abs("mod.txt")); err != nil || !info.IsDir() {
		t.Errorf("the directory was touched: %v", err)
	}
	if info, err := os.Lstat(e.abs("new.txt")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was touched: %v", err)
	}
	if e.read("other.txt") != "<missing>" {
		t.Error("other.txt was not undone")
	}
}
