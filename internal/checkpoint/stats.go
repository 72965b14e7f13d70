package checkpoint

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/store"
)

// FileStats are one file's line counts in a checkpoint.
type FileStats struct {
	Path      string           `json:"path"`
	Action    string           `json:"action"` // created | modified
	Status    store.FileStatus `json:"status"`
	Additions int              `json:"additions"`
	Deletions int              `json:"deletions"`
}

// CheckpointStats are a checkpoint's files and its pending totals.
type CheckpointStats struct {
	store.Checkpoint
	Files []FileStats `json:"files"`
}

// Stats recomputes the +N −N of every pending file of a checkpoint (the
// agent's remaining changes, original → written), stores them on the
// snapshots, caches the totals on the checkpoint row, and returns them with
// the resolved files' last counts.
func (m *Manager) Stats(ctx context.Context, checkpointID string) (*CheckpointStats, error) {
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c, err := m.checkpoint(ctx, checkpointID)
	if err != nil {
		return nil, err
	}
	snaps, err := m.st.Snapshots(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if err := m.countPending(ctx, c.ID, snaps, false); err != nil {
		return nil, err
	}
	if _, err := m.settleCheckpoint(ctx, c, snaps); err != nil {
		return nil, err
	}
	return statsOf(*c, snaps), nil
}

// refresh recomputes the checkpoint's status and totals after files
// changed, computing counts for pending files that have none yet.
func (m *Manager) refresh(ctx context.Context, c *store.Checkpoint) (store.CheckpointStatus, error) {
	snaps, err := m.st.Snapshots(ctx, c.ID)
	if err != nil {
		return "", err
	}
	if err := m.countPending(ctx, c.ID, snaps, true); err != nil {
		return "", err
	}
	return m.settleCheckpoint(ctx, c, snaps)
}

// countPending computes the counts of the pending snapshots (only those
// without counts when onlyMissing) and stores the ones that changed, in
// one transaction.
func (m *Manager) countPending(ctx context.Context, checkpoint string, snaps []store.FileSnapshot, onlyMissing bool) error {
	var changed []store.SnapshotStats
	for i := range snaps {
		s := &snaps[i]
		known := s.Additions != nil && s.Deletions != nil
		if s.Status != store.FilePending || (onlyMissing && known) {
			continue
		}
		adds, dels, err := m.statsOf(*s)
		if err != nil {
			return err
		}
		if known && *s.Additions == adds && *s.Deletions == dels {
			continue
		}
		s.Additions, s.Deletions = &adds, &dels
		changed = append(changed, store.SnapshotStats{FilePath: s.FilePath, Additions: adds, Deletions: dels})
	}
	return m.st.SetSnapshotsStats(ctx, checkpoint, changed)
}

// settleCheckpoint stores the checkpoint's totals (over its pending files)
// and status, prunes the originals of kept files, and updates c.
func (m *Manager) settleCheckpoint(ctx context.Context, c *store.Checkpoint, snaps []store.FileSnapshot) (store.CheckpointStatus, error) {
	adds, dels := 0, 0
	kept := false
	for _, s := range snaps {
		if s.Status == store.FilePending {
			adds += deref(s.Additions)
			dels += deref(s.Deletions)
		}
		kept = kept || (s.Status == store.FileKept && (s.OriginalContent != nil || s.WrittenContent != nil))
	}
	if adds != c.TotalAdditions || dels != c.TotalDeletions {
		if err := m.st.SetCheckpointTotals(ctx, c.ID, adds, dels); err != nil {
			return "", err
		}
		c.TotalAdditions, c.TotalDeletions = adds, dels
	}
	st := checkpointStatus(snaps)
	if st != c.Status {
		if err := m.st.SetCheckpointStatus(ctx, c.ID, st); err != nil {
			return "", err
		}
		c.Status = st
	}
	if kept {
		// A kept file's original is no longer needed for undo (seed 003,
		// "Snapshot Content Pruning"); undone files keep theirs.
		if _, err := m.st.PruneKept(ctx, c.ID); err != nil {
			return "", fmt.Errorf("prune checkpoint %s: %w", c.ID, err)
		}
	}
	return st, nil
}

// checkpointStatus is pending while any file is; then kept or undone when
// every file ended that way, else partial.
func checkpointStatus(snaps []store.FileSnapshot) store.CheckpointStatus {
	kept, undone := 0, 0
	for _, s := range snaps {
		switch s.Status {
		case store.FilePending:
			return store.CheckpointPending
		case store.FileKept:
			kept++
		case store.FileUndone:
			undone++
		}
	}
	switch {
	case kept == len(snaps):
		return store.CheckpointKept
	case undone == len(snaps):
		return store.CheckpointUndone
	}
	return store.CheckpointPartial
}

func statsOf(c store.Checkpoint, snaps []store.FileSnapshot) *CheckpointStats {
	out := &CheckpointStats{Checkpoint: c, Files: make([]FileStats, 0, len(snaps))}
	for _, s := range snaps {
		action := "modified"
		if !s.Existed {
			action = "created"
		}
		out.Files = append(out.Files, FileStats{Path: s.FilePath, Action: action, Status: s.Status,
			Additions: deref(s.Additions), Deletions: deref(s.Deletions)})
	}
	return out
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
