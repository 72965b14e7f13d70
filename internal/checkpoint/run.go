package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// Run is the checkpoint of one agent run. It implements the write tool's
// Snapshotter. The checkpoint row is created lazily, at the run's first
// write, so a run that only reads leaves no empty checkpoint (and no empty
// "files changed" widget) behind.
type Run struct {
	m       *Manager
	session string
	turn    int

	mu    sync.Mutex
	id    string
	dirty []string // snapshot paths written since the last Report, in order
	// first runs once, before the run's first snapshot (a git branch for
	// the run's work: agent.autoCreateBranch).
	first func(ctx context.Context)
}

// BeforeFirstWrite sets f to run once, before the run's first write is
// snapshotted. It is how a run starts its work on a new git branch: only
// when it really writes, and before anything is written.
func (r *Run) BeforeFirstWrite(f func(ctx context.Context)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.first = f
}

// Begin starts the checkpoint of an agent run of session, for prompt turn.
// Nothing is stored until the run's first write.
func (m *Manager) Begin(session string, turn int) *Run {
	return &Run{m: m, session: session, turn: turn}
}

// ID returns the run's checkpoint id, or "" while it has written nothing.
func (r *Run) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

// BeforeWrite snapshots p before the run's first write to it: its bytes and
// mode, or that it does not exist yet together with newDirs, the
// directories the write will create (absolute, outermost first). Later
// writes to the same file in the run keep the first snapshot, the true
// original. It returns the checkpoint id. An error means the file could not
// be snapshotted, and the write must not happen.
func (r *Run) BeforeWrite(ctx context.Context, p workspace.Path, newDirs []string) (string, error) {
	unlock, err := r.m.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id == "" {
		if r.first != nil {
			r.first(ctx)
			r.first = nil
		}
		c := &store.Checkpoint{ID: r.m.newID(), SessionID: r.session, Turn: r.turn}
		if err := r.m.st.CreateCheckpoint(ctx, c); err != nil {
			return "", err
		}
		r.id = c.ID
	}
	rel := r.m.RelPath(p.Abs)
	if err := r.snapshot(ctx, p.Abs, rel, newDirs); err != nil {
		return "", fmt.Errorf("snapshot %s: %w", rel, err)
	}
	if !contains(r.dirty, rel) {
		r.dirty = append(r.dirty, rel)
	}
	return r.id, nil
}

// snapshot stores the file's original unless this checkpoint already
// holds a pending snapshot of it. A snapshot the person already kept or
// undone while the run went on is taken again: the new write must be
// undoable too.
func (r *Run) snapshot(ctx context.Context, abs, rel string, newDirs []string) error {
	old, err := r.m.st.Snapshot(ctx, r.id, rel)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if old != nil && old.Status == store.FilePending {
		return nil
	}
	data, mode, exists, err := readCurrent(abs)
	if err != nil {
		return err
	}
	snap := store.FileSnapshot{CheckpointID: r.id, FilePath: rel, Existed: exists, OriginalMode: mode}
	if exists {
		snap.OriginalContent = data
		if snap.OriginalContent == nil {
			snap.OriginalContent = []byte{}
		}
	}
	// Deepest first: the order undo removes them in.
	for i := len(newDirs) - 1; i >= 0; i-- {
		snap.CreatedDirs = append(snap.CreatedDirs, r.m.RelPath(newDirs[i]))
	}
	if old == nil {
		_, err = r.m.st.AddSnapshot(ctx, &snap)
		return err
	}
	snap.Status = store.FilePending
	return r.m.st.SaveSnapshotReview(ctx, &snap)
}

// Report records what the agent wrote to the files written since the last
// Report, computes their +N −N and the checkpoint's totals, and emits
// files_changed for them (frontends merge it by checkpoint id). The agent
// calls it after every tool batch that wrote files: the written content it
// records is what lets undo tell the agent's lines from the person's later
// edits. It returns the event's payload, or nil when nothing was written.
func (r *Run) Report(ctx context.Context) (*event.FilesChanged, error) {
	unlock, err := r.m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id == "" || len(r.dirty) == 0 {
		return nil, nil
	}
	c, err := r.m.checkpoint(ctx, r.id)
	if err != nil {
		return nil, err
	}
	p := &event.FilesChanged{CheckpointID: r.id}
	for _, rel := range r.dirty {
		cf, ok, err := r.record(ctx, rel)
		if err != nil {
			return nil, err
		}
		if ok {
			p.Files = append(p.Files, cf)
		}
	}
	r.dirty = nil
	st, err := r.m.refresh(ctx, c)
	if err != nil {
		return nil, err
	}
	p.Status = string(st)
	return p, r.m.publish(ctx, c, *p)
}

// record stores the file on disk as the agent's written content, with its
// counts. A file the person resolved in the meantime is left alone (ok is
// false).
func (r *Run) record(ctx context.Context, rel string) (cf event.ChangedFile, ok bool, err error) {
	snap, err := r.m.st.Snapshot(ctx, r.id, rel)
	if err != nil || snap.Status != store.FilePending {
		return cf, false, err
	}
	cur, _, exists, err := readCurrent(r.m.AbsPath(rel))
	if err != nil && !errors.Is(err, errIrregular) {
		return cf, false, fmt.Errorf("read %s after the write: %w", rel, err)
	}
	snap.WrittenContent = nil
	if exists {
		snap.WrittenContent = cur
		if cur == nil {
			snap.WrittenContent = []byte{}
		}
	}
	f, err := r.m.loadFile(*snap)
	if err != nil {
		return cf, false, err
	}
	adds, dels := f.stats()
	snap.Additions, snap.Deletions = &adds, &dels
	if err := r.m.st.SaveSnapshotReview(ctx, snap); err != nil {
		return cf, false, err
	}
	return event.ChangedFile{Path: rel, Action: f.action(), Additions: adds, Deletions: dels, Status: string(snap.Status)}, true, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
