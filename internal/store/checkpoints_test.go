package store

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"testing"
)

func TestCheckpointsAndSnapshots(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	ck := &Checkpoint{SessionID: "a", Turn: 3}
	if err := s.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	if ck.ID == "" || ck.Status != CheckpointPending {
		t.Fatalf("checkpoint %+v", ck)
	}
	if err := s.CreateCheckpoint(ctx, &Checkpoint{SessionID: "missing"}); err == nil {
		t.Error("checkpoint for a missing session was stored")
	}

	first := &FileSnapshot{CheckpointID: ck.ID, FilePath: "src/a.go", OriginalContent: []byte("package a\n"),
		OriginalMode: 0o755, Existed: true}
	added, err := s.AddSnapshot(ctx, first)
	if err != nil || !added || first.ID == 0 {
		t.Fatalf("AddSnapshot = %v, %v (id %d)", added, err, first.ID)
	}
	// A second snapshot of the same file in the same run is ignored: the
	// first holds the true original.
	added, err = s.AddSnapshot(ctx, &FileSnapshot{CheckpointID: ck.ID, FilePath: "src/a.go", OriginalContent: []byte("changed")})
	if err != nil || added {
		t.Fatalf("second AddSnapshot = %v, %v", added, err)
	}
	created := &FileSnapshot{CheckpointID: ck.ID, FilePath: "new/dir/b.go", Existed: false,
		CreatedDirs: []string{"new/dir", "new"}}
	if _, err := s.AddSnapshot(ctx, created); err != nil {
		t.Fatal(err)
	}
	got, err := s.Snapshot(ctx, ck.ID, "src/a.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.OriginalContent) != "package a\n" || got.OriginalMode != fs.FileMode(0o755) || !got.Existed ||
		got.Status != FilePending || got.Additions != nil {
		t.Errorf("snapshot %+v", got)
	}
	got, _ = s.Snapshot(ctx, ck.ID, "new/dir/b.go")
	if got.Existed || !slices.Equal(got.CreatedDirs, []string{"new/dir", "new"}) || got.OriginalContent != nil {
		t.Errorf("created-file snapshot %+v", got)
	}

	if err := s.SetSnapshotStats(ctx, ck.ID, "src/a.go", 4, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSnapshotOriginal(ctx, ck.ID, "src/a.go", []byte("package a\n// kept hunk\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSnapshotStatus(ctx, ck.ID, "src/a.go", FileKept); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneKept(ctx, ck.ID)
	if err != nil || n != 1 {
		t.Fatalf("PruneKept = %d, %v", n, err)
	}
	list, err := s.Snapshots(ctx, ck.ID)
	if err != nil || len(list) != 2 || list[0].FilePath != "src/a.go" {
		t.Fatalf("Snapshots = %+v, %v", list, err)
	}
	if list[0].OriginalContent != nil || list[0].Status != FileKept || *list[0].Additions != 4 || *list[0].Deletions != 1 {
		t.Errorf("kept snapshot %+v", list[0])
	}
	if err := s.SetCheckpointStatus(ctx, ck.ID, CheckpointPartial); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCheckpointTotals(ctx, ck.ID, 10, 2); err != nil {
		t.Fatal(err)
	}
	c, err := s.Checkpoint(ctx, ck.ID)
	if err != nil || c.Status != CheckpointPartial || c.TotalAdditions != 10 || c.Turn != 3 {
		t.Errorf("Checkpoint = %+v, %v", c, err)
	}
	cks, _ := s.Checkpoints(ctx, "a")
	if len(cks) != 1 || cks[0].ID != ck.ID {
		t.Errorf("Checkpoints = %+v", cks)
	}

	for name, err := range map[string]error{
		"status":   s.SetSnapshotStatus(ctx, ck.ID, "nope.go", FileKept),
		"stats":    s.SetSnapshotStats(ctx, "nope", "src/a.go", 1, 1),
		"original": s.SetSnapshotOriginal(ctx, ck.ID, "nope.go", nil),
		"ckstatus": s.SetCheckpointStatus(ctx, "nope", CheckpointKept),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s on a missing row: %v", name, err)
		}
	}
	if _, err := s.Snapshot(ctx, ck.ID, "nope.go"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing snapshot: %v", err)
	}
	if _, err := s.Checkpoint(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing checkpoint: %v", err)
	}
}

func TestPendingStatsTwoLevels(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, id := range []string{"a", "b", "c"} {
		newSession(t, s, id)
	}
	ints := func(n int) *int { return &n }
	type snap struct {
		path     string
		status   FileStatus
		add, del *int
	}
	mk := func(session string, totalAdd, totalDel int, snaps ...snap) {
		ck := &Checkpoint{SessionID: session, TotalAdditions: totalAdd, TotalDeletions: totalDel}
		if err := s.CreateCheckpoint(ctx, ck); err != nil {
			t.Fatal(err)
		}
		for _, sn := range snaps {
			if _, err := s.AddSnapshot(ctx, &FileSnapshot{CheckpointID: ck.ID, FilePath: sn.path,
				Status: sn.status, Additions: sn.add, Deletions: sn.del, Existed: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// a: one checkpoint with per-file stats (the kept file does not count,
	// the file without stats adds 0), one with only checkpoint totals.
	mk("a", 100, 100,
		snap{"x", FilePending, ints(5), ints(2)},
		snap{"y", FilePending, nil, nil},
		snap{"z", FileKept, ints(50), ints(50)})
	mk("a", 7, 3, snap{"w", FilePending, nil, nil})
	// b: everything resolved — absent from the result.
	mk("b", 9, 9, snap{"x", FileUndone, ints(9), ints(9)})
	// c: no checkpoints at all.
	got, err := s.PendingStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]DiffStats{"a": {Additions: 5 + 7, Deletions: 2 + 3, Files: 3}}
	if len(got) != len(want) || got["a"] != want["a"] {
		t.Errorf("PendingStats = %+v, want %+v", got, want)
	}
	for _, id := range []string{"a", "b", "c"} {
		if one, err := s.SessionPendingStats(ctx, id); err != nil || one != want[id] {
			t.Errorf("SessionPendingStats(%s) = %+v, %v; want %+v", id, one, err, want[id])
		}
	}
}
