package checkpoint

import (
	"context"
	"fmt"
	"slices"
)

// ChangePosition is what a "change X of Y" counter shows.
type ChangePosition struct {
	// Current is X (1-based), 0 when nothing is left to review.
	Current int `json:"current"`
	Total   int `json:"total"`
	// FilePath, CheckpointID and Hunk (1-based) name the current change.
	FilePath     string `json:"filePath,omitempty"`
	CheckpointID string `json:"checkpointId,omitempty"`
	Hunk         int    `json:"hunk,omitempty"`
}

// ReviewSession is a person's review over one or more checkpoints: the
// files and hunks left, and where they are among them. Frontends keep one
// per session view. Builds are serialized (seed pitfall #16: two builds
// racing lost each other's checkpoints), navigation never rebuilds a
// session that already covers the checkpoints asked for (pitfall #17:
// every click went back to the first change), and rebuilding keeps the
// position on the same file and hunk (pitfalls #23, #24).
type ReviewSession struct {
	m   *Manager
	sem chan struct{}

	ids   []string
	files []FileReview
	pos   Position
	built bool
}

// NewReviewSession starts an empty review.
func (m *Manager) NewReviewSession() *ReviewSession {
	return &ReviewSession{m: m, sem: make(chan struct{}, 1), pos: NoPosition}
}

func (r *ReviewSession) lock(ctx context.Context) (func(), error) {
	select {
	case r.sem <- struct{}{}:
		return func() { <-r.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Start adds checkpoints to the review (an agent run wrote files, or the
// person opened the review) and rebuilds it.
func (r *ReviewSession) Start(ctx context.Context, checkpointIDs ...string) (ChangePosition, error) {
	unlock, err := r.lock(ctx)
	if err != nil {
		return ChangePosition{}, err
	}
	defer unlock()
	r.merge(checkpointIDs)
	if err := r.rebuild(ctx); err != nil {
		return ChangePosition{}, err
	}
	return r.position(), nil
}

// Navigate moves through the changes. It builds the review only when it
// has not been built or lacks one of checkpointIDs.
func (r *ReviewSession) Navigate(ctx context.Context, mv Move, checkpointIDs ...string) (ChangePosition, error) {
	unlock, err := r.lock(ctx)
	if err != nil {
		return ChangePosition{}, err
	}
	defer unlock()
	if !r.built || r.merge(checkpointIDs) {
		if err := r.rebuild(ctx); err != nil {
			return ChangePosition{}, err
		}
	}
	r.pos = Step(r.counts(), r.pos, mv)
	return r.position(), nil
}

// Focus makes path's first change current (the file a frontend shows),
// and leaves the position alone when path is not under review.
func (r *ReviewSession) Focus(ctx context.Context, path string) (ChangePosition, error) {
	unlock, err := r.lock(ctx)
	if err != nil {
		return ChangePosition{}, err
	}
	defer unlock()
	if i := r.indexOf(path); i >= 0 && r.pos.File != i {
		r.pos = Position{File: i, Hunk: 0}
	}
	return r.position(), nil
}

// Keep keeps hunk (1-based; 0 for the whole file) of path as the review
// shows it, then rebuilds, staying on the same place.
func (r *ReviewSession) Keep(ctx context.Context, path string, hunk int) (*Outcome, ChangePosition, error) {
	return r.act(ctx, path, hunk, ActionKeep)
}

// Undo undoes hunk (1-based; 0 for the whole file) of path as the review
// shows it, then rebuilds, staying on the same place.
func (r *ReviewSession) Undo(ctx context.Context, path string, hunk int) (*Outcome, ChangePosition, error) {
	return r.act(ctx, path, hunk, ActionUndo)
}

func (r *ReviewSession) act(ctx context.Context, path string, hunk int, action string) (*Outcome, ChangePosition, error) {
	unlock, err := r.lock(ctx)
	if err != nil {
		return nil, ChangePosition{}, err
	}
	defer unlock()
	i := r.indexOf(path)
	if i < 0 {
		return nil, r.position(), fmt.Errorf("%s has no changes under review", path)
	}
	fr := r.files[i]
	if hunk > 0 && len(fr.Hunks) == 1 && fr.Hunks[0].WholeFile {
		hunk = 0 // the one change of a whole-file entry is the file
	}
	sel := Selector{Checkpoint: fr.CheckpointID, Path: path, Hunk: hunk}
	var out *Outcome
	if action == ActionKeep {
		out, err = r.m.Keep(ctx, sel)
	} else {
		out, err = r.m.Undo(ctx, sel)
	}
	if out == nil {
		return nil, r.position(), err
	}
	// Stay where the person is: the same hunk index now shows the next
	// hunk, and a resolved file gives way to the one after it.
	if rerr := r.rebuild(ctx); rerr != nil {
		return out, r.position(), rerr
	}
	return out, r.position(), err
}

// Files returns the files under review, in review order.
func (r *ReviewSession) Files() []FileReview {
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	return slices.Clone(r.files)
}

// Position returns the current change.
func (r *ReviewSession) Position() ChangePosition {
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	return r.position()
}

// CheckpointIDs returns the checkpoints the review covers.
func (r *ReviewSession) CheckpointIDs() []string {
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	return slices.Clone(r.ids)
}

// merge adds ids the review lacks and reports whether there were any.
func (r *ReviewSession) merge(ids []string) bool {
	added := false
	for _, id := range ids {
		if id != "" && !slices.Contains(r.ids, id) {
			r.ids = append(r.ids, id)
			added = true
		}
	}
	return added
}

// rebuild reads the review again and puts the position back on the same
// file and hunk, or on the file that took the place of a resolved one.
func (r *ReviewSession) rebuild(ctx context.Context) error {
	files, err := r.m.Review(ctx, r.ids)
	if err != nil {
		return err
	}
	prev, prevPath := r.pos, ""
	if valid(r.counts(), prev) {
		prevPath = r.files[prev.File].Path
	}
	r.files, r.built = files, true
	if i := r.indexOf(prevPath); i >= 0 {
		r.pos = Clamp(r.counts(), Position{File: i, Hunk: prev.Hunk})
	} else {
		r.pos = Clamp(r.counts(), Position{File: prev.File, Hunk: 0})
	}
	return nil
}

func (r *ReviewSession) indexOf(path string) int {
	if path == "" {
		return -1
	}
	for i, f := range r.files {
		if f.Path == path {
			return i
		}
	}
	return -1
}

func (r *ReviewSession) counts() []int { return countsOf(r.files) }

func countsOf(files []FileReview) []int {
	out := make([]int, len(files))
	for i, f := range files {
		out[i] = len(f.Hunks)
	}
	return out
}

// position renders the current change for a counter.
func (r *ReviewSession) position() ChangePosition {
	counts := r.counts()
	cp := ChangePosition{Total: Total(counts), Current: Ordinal(counts, r.pos)}
	if valid(counts, r.pos) {
		f := r.files[r.pos.File]
		cp.FilePath, cp.CheckpointID, cp.Hunk = f.Path, f.CheckpointID, f.Hunks[r.pos.Hunk].Number
	}
	return cp
}
