package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestSaveSnapshotReview(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	ck := &Checkpoint{SessionID: "a"}
	if err := s.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	f := &FileSnapshot{CheckpointID: ck.ID, FilePath: "a.txt", OriginalContent: []byte("one\n"), Existed: true}
	if _, err := s.AddSnapshot(ctx, f); err != nil {
		t.Fatal(err)
	}
	got, err := s.Snapshot(ctx, ck.ID, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got.WrittenContent != nil || got.HunksKept != 0 || got.HunksUndone != 0 {
		t.Fatalf("fresh snapshot %+v", got)
	}

	adds, dels := 2, 1
	got.OriginalContent = []byte("one\nkept\n")
	got.WrittenContent = []byte("one\nkept\nmore\n")
	got.OriginalMode = 0o600
	got.CreatedDirs = []string{"x/y", "x"}
	got.Status = FilePartial
	got.Additions, got.Deletions = &adds, &dels
	got.HunksKept, got.HunksUndone = 1, 2
	if err := s.SaveSnapshotReview(ctx, got); err != nil {
		t.Fatal(err)
	}
	back, err := s.Snapshot(ctx, ck.ID, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(back.OriginalContent) != "one\nkept\n" || string(back.WrittenContent) != "one\nkept\nmore\n" ||
		back.OriginalMode != 0o600 || !slices.Equal(back.CreatedDirs, []string{"x/y", "x"}) || back.Status != FilePartial ||
		*back.Additions != 2 || *back.Deletions != 1 || back.HunksKept != 1 || back.HunksUndone != 2 {
		t.Errorf("saved review read back as %+v", back)
	}

	// Pruning a kept file drops the written content as well.
	back.Status = FileKept
	if err := s.SaveSnapshotReview(ctx, back); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneKept(ctx, ck.ID); err != nil || n != 1 {
		t.Fatalf("PruneKept = %d, %v", n, err)
	}
	back, _ = s.Snapshot(ctx, ck.ID, "a.txt")
	if back.OriginalContent != nil || back.WrittenContent != nil {
		t.Errorf("pruned snapshot keeps content: %+v", back)
	}

	missing := &FileSnapshot{CheckpointID: ck.ID, FilePath: "nope"}
	if err := s.SaveSnapshotReview(ctx, missing); !errors.Is(err, ErrNotFound) {
		t.Errorf("saving a missing snapshot: %v, want ErrNotFound", err)
	}
}

// An empty file's content is an empty slice, not nil: nil means pruned or
// not recorded.
func TestSnapshotEmptyContentIsNotNull(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	ck := &Checkpoint{SessionID: "a"}
	if err := s.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddSnapshot(ctx, &FileSnapshot{CheckpointID: ck.ID, FilePath: "empty", OriginalContent: []byte{}, Existed: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddSnapshot(ctx, &FileSnapshot{CheckpointID: ck.ID, FilePath: "new"}); err != nil {
		t.Fatal(err)
	}
	f, err := s.Snapshot(ctx, ck.ID, "empty")
	if err != nil {
		t.Fatal(err)
	}
	if f.OriginalContent == nil || len(f.OriginalContent) != 0 || f.WrittenContent != nil {
		t.Fatalf("empty original read as %#v, written %#v", f.OriginalContent, f.WrittenContent)
	}
	f.WrittenContent = []byte{}
	if err := s.SaveSnapshotReview(ctx, f); err != nil {
		t.Fatal(err)
	}
	f, _ = s.Snapshot(ctx, ck.ID, "empty")
	if f.WrittenContent == nil {
		t.Error("empty written content read back as not recorded")
	}
	created, _ := s.Snapshot(ctx, ck.ID, "new")
	if created.OriginalContent != nil {
		t.Errorf("created file's original %#v, want nil", created.OriginalContent)
	}
	if err := s.SetSnapshotOriginal(ctx, ck.ID, "new", nil); err != nil {
		t.Fatal(err)
	}
	created, _ = s.Snapshot(ctx, ck.ID, "new")
	if created.OriginalContent == nil {
		t.Error("SetSnapshotOriginal(nil) read back as pruned")
	}
}

func TestSetSnapshotsStats(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	ck := &Checkpoint{SessionID: "a"}
	if err := s.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"x", "y"} {
		if _, err := s.AddSnapshot(ctx, &FileSnapshot{CheckpointID: ck.ID, FilePath: p, Existed: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetSnapshotsStats(ctx, ck.ID, []SnapshotStats{{"x", 1, 2}, {"y", 3, 4}}); err != nil {
		t.Fatal(err)
	}
	list, _ := s.Snapshots(ctx, ck.ID)
	if *list[0].Additions != 1 || *list[0].Deletions != 2 || *list[1].Additions != 3 || *list[1].Deletions != 4 {
		t.Errorf("stats not stored: %+v %+v", list[0], list[1])
	}
	// One unknown file rolls the whole batch back.
	err := s.SetSnapshotsStats(ctx, ck.ID, []SnapshotStats{{"x", 9, 9}, {"nope", 1, 1}})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown file: %v", err)
	}
	list, _ = s.Snapshots(ctx, ck.ID)
	if *list[0].Additions != 1 {
		t.Error("a failed batch was half applied")
	}
}
