package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/atomicfile"

	"github.com/olly-agent/olly/internal/store"
)

// Actions on changes.
const (
	ActionKeep = "keep"
	ActionUndo = "undo"
)

// Selector picks what Keep and Undo act on.
type Selector struct {
	Checkpoint string
	// Path is a snapshot path (Manager.RelPath form); empty means every
	// pending file of the checkpoint.
	Path string
	// Hunk is a 1-based hunk number of Path; 0 means the whole file.
	Hunk int
}

// Outcome is what a keep or undo did.
type Outcome struct {
	Action       string `json:"action"`
	CheckpointID string `json:"checkpointId"`
	// Status is the checkpoint's status afterwards.
	Status store.CheckpointStatus `json:"status"`
	Files  []FileOutcome          `json:"files"`
}

// FileOutcome is what a keep or undo did to one file.
type FileOutcome struct {
	Path   string `json:"path"`
	Action string `json:"fileAction"` // created | modified
	// Hunk is the hunk acted on, 0 for the whole file.
	Hunk int `json:"hunk,omitempty"`
	// Resolved is true when nothing is left to review in the file; Status
	// then says how it ended.
	Resolved bool             `json:"resolved"`
	Status   store.FileStatus `json:"status"`
	// Applied counts the changes this operation kept or undone.
	Applied int `json:"applied"`
	// Additions and Deletions are what is left to review.
	Additions int        `json:"additions"`
	Deletions int        `json:"deletions"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// Conflicts lists every conflict of the outcome.
func (o *Outcome) Conflicts() []Conflict {
	var out []Conflict
	for _, f := range o.Files {
		out = append(out, f.Conflicts...)
	}
	return out
}

// Keep accepts the selected changes: hunks are folded into the snapshot's
// original, so the remaining diff is still original → written; the files
// on disk are not touched.
func (m *Manager) Keep(ctx context.Context, sel Selector) (*Outcome, error) {
	return m.apply(ctx, sel, ActionKeep)
}

// Undo reverts the selected changes in the files on disk, only where a file
// still holds the agent's lines: the rest are reported as conflicts and
// left for the person (keep them, or edit the file). Undoing a file the
// agent created removes it, and the directories olly created for it while
// they are empty.
func (m *Manager) Undo(ctx context.Context, sel Selector) (*Outcome, error) {
	return m.apply(ctx, sel, ActionUndo)
}

func (m *Manager) apply(ctx context.Context, sel Selector, action string) (*Outcome, error) {
	if sel.Path == "" && sel.Hunk != 0 {
		return nil, fmt.Errorf("a hunk number needs a file: name the file the hunk belongs to")
	}
	if sel.Hunk < 0 {
		return nil, fmt.Errorf("hunk %d: %w: hunks are numbered from 1", sel.Hunk, ErrNoSuchHunk)
	}
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c, err := m.checkpoint(ctx, sel.Checkpoint)
	if err != nil {
		return nil, err
	}
	snaps, err := m.selected(ctx, c, sel)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Action: action, CheckpointID: c.ID}
	dirs := &createdDirs{m: m, session: c.SessionID}
	var opErr error
	for _, snap := range snaps {
		if err := ctx.Err(); err != nil {
			opErr = err // stop between files, never inside one
			break
		}
		fo, err := m.applyFile(ctx, snap, sel.Hunk, action, dirs)
		if err != nil {
			opErr = err
			break
		}
		out.Files = append(out.Files, *fo)
	}
	if len(out.Files) == 0 && opErr != nil {
		return nil, opErr
	}
	// What happened on disk is recorded and announced even when ctx ended
	// meanwhile: a half-recorded undo would show the person stale hunks.
	ctx = context.WithoutCancel(ctx)
	st, err := m.refresh(ctx, c)
	if err != nil {
		return out, errors.Join(opErr, err)
	}
	out.Status = st
	return out, errors.Join(opErr, m.announce(ctx, c, out, sel.Path == ""))
}

// selected returns the snapshots sel names: one file (which must be
// pending), or every pending file of the checkpoint.
func (m *Manager) selected(ctx context.Context, c *store.Checkpoint, sel Selector) ([]store.FileSnapshot, error) {
	if sel.Path != "" {
		snap, err := m.st.Snapshot(ctx, c.ID, sel.Path)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("%s was not changed in checkpoint %s (see olly changes): %w", sel.Path, c.ID, err)
		}
		if err != nil {
			return nil, err
		}
		if snap.Status != store.FilePending {
			return nil, fmt.Errorf("%s in checkpoint %s was %s already: %w", sel.Path, c.ID, snap.Status, ErrResolved)
		}
		return []store.FileSnapshot{*snap}, nil
	}
	all, err := m.st.Snapshots(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	var out []store.FileSnapshot
	for _, s := range all {
		if s.Status == store.FilePending {
			out = append(out, s)
		}
	}
	return out, nil
}

// applyFile keeps or undoes one file (or one hunk of it) and stores the
// result: the file on disk first, then its snapshot, so a failure never
// leaves the store claiming an undo the disk does not show.
func (m *Manager) applyFile(ctx context.Context, snap store.FileSnapshot, hunk int, action string, dirs *createdDirs) (*FileOutcome, error) {
	f, err := m.loadFile(snap)
	if err != nil {
		return nil, err
	}
	var conflicts []Conflict
	before := f.snap.HunksKept + f.snap.HunksUndone
	switch {
	case action == ActionKeep && hunk > 0:
		err = f.keepHunk(hunk)
	case action == ActionKeep:
		f.keepAll()
	case hunk > 0:
		var c *Conflict
		if c, err = f.undoHunk(hunk); c != nil {
			conflicts = append(conflicts, *c)
		}
	default:
		conflicts = f.undoAll()
	}
	if err != nil {
		return nil, err
	}
	if err := m.writeBack(ctx, f, dirs); err != nil {
		return nil, err
	}
	f.settle()
	// The disk changed: record it whatever happens to ctx now.
	if err := m.st.SaveSnapshotReview(context.WithoutCancel(ctx), &f.snap); err != nil {
		return nil, err
	}
	adds, dels := f.stats()
	return &FileOutcome{Path: snap.FilePath, Action: f.action(), Hunk: hunk, Resolved: f.done, Status: f.snap.Status,
		Applied: f.snap.HunksKept + f.snap.HunksUndone - before, Additions: adds, Deletions: dels, Conflicts: conflicts}, nil
}

// writeBack puts the file's new current content on disk, keeping its mode.
func (m *Manager) writeBack(ctx context.Context, f *file, dirs *createdDirs) error {
	if !f.curChanged {
		return nil
	}
	if f.removeCur {
		created, err := dirs.get(ctx)
		if err != nil {
			return err
		}
		if err := removeCreated(f.abs, created); err != nil {
			return fmt.Errorf("remove %s: %w", f.snap.FilePath, err)
		}
		return nil
	}
	if err := atomicfile.Write(f.abs, f.cur, f.mode); err != nil {
		return fmt.Errorf("write %s: %w", f.snap.FilePath, err)
	}
	return nil
}

// createdDirs gathers, once, the directories olly created for new files in
// any checkpoint of a session: undoing one file may empty a directory that
// another file's snapshot recorded.
type createdDirs struct {
	m       *Manager
	session string
	dirs    map[string]bool
}

func (d *createdDirs) get(ctx context.Context) (map[string]bool, error) {
	if d.dirs != nil {
		return d.dirs, nil
	}
	cps, err := d.m.st.Checkpoints(ctx, d.session)
	if err != nil {
		return nil, err
	}
	d.dirs = map[string]bool{}
	for _, c := range cps {
		snaps, err := d.m.st.Snapshots(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		for _, s := range snaps {
			for _, dir := range s.CreatedDirs {
				d.dirs[d.m.AbsPath(dir)] = true
			}
		}
	}
	return d.dirs, nil
}
