package checkpoint

import (
	"context"
	"fmt"
	"slices"

	"github.com/olly-agent/olly/internal/store"
)

// Pending returns the session's checkpoints that still have pending
// files, oldest first: what a review covers.
func (m *Manager) Pending(ctx context.Context, session string) ([]store.Checkpoint, error) {
	cps, err := m.st.Checkpoints(ctx, session)
	if err != nil {
		return nil, fmt.Errorf("read the checkpoints of session %s: %w", session, err)
	}
	return slices.DeleteFunc(cps, func(c store.Checkpoint) bool { return c.Status != store.CheckpointPending }), nil
}

// SessionChanges are a session's pending changes, as every frontend lists
// them (olly changes, RPC list_changes).
type SessionChanges struct {
	// Checkpoints are the pending ones with their files' +N −N, oldest
	// first (Stats).
	Checkpoints []CheckpointStats
	// Pending totals what is still pending, two-level as the sessions
	// list's badge (store.SessionPendingStats): kept and undone files do
	// not count.
	Pending store.DiffStats
}

// IDs are the checkpoints' ids, for a ReviewSession.
func (c *SessionChanges) IDs() []string {
	ids := make([]string, len(c.Checkpoints))
	for i, cp := range c.Checkpoints {
		ids[i] = cp.ID
	}
	return ids
}

// SessionChanges recomputes the stats of the session's pending
// checkpoints and totals what is pending.
func (m *Manager) SessionChanges(ctx context.Context, session string) (*SessionChanges, error) {
	cps, err := m.Pending(ctx, session)
	if err != nil {
		return nil, err
	}
	out := &SessionChanges{Checkpoints: []CheckpointStats{}}
	for _, cp := range cps {
		st, err := m.Stats(ctx, cp.ID)
		if err != nil {
			return nil, err
		}
		out.Checkpoints = append(out.Checkpoints, *st)
	}
	if out.Pending, err = m.st.SessionPendingStats(ctx, session); err != nil {
		return nil, fmt.Errorf("pending changes of session %s: %w", session, err)
	}
	return out, nil
}

// ApplySession keeps or undoes (action: ActionKeep or ActionUndo) a
// session's pending changes across its checkpoints: those to path (a
// snapshot path, Manager.RelPath form) in every pending checkpoint that
// holds it, or — with path "" — every pending change. Undos run newest
// checkpoint first, so each finds the files as its run left them (with no
// edits in between this restores the tree exactly). It returns one outcome
// per checkpoint acted on, and stops at the first error; conflicts are in
// the outcomes, not errors. Nothing pending is an error saying so.
func (m *Manager) ApplySession(ctx context.Context, session, action, path string) ([]Outcome, error) {
	if action != ActionKeep && action != ActionUndo {
		return nil, fmt.Errorf("unknown action %q: use %s or %s", action, ActionKeep, ActionUndo)
	}
	cps, err := m.Pending(ctx, session)
	if err != nil {
		return nil, err
	}
	if action == ActionUndo {
		slices.Reverse(cps)
	}
	var sels []Selector
	for _, cp := range cps {
		if path == "" {
			sels = append(sels, Selector{Checkpoint: cp.ID})
			continue
		}
		snaps, err := m.st.Snapshots(ctx, cp.ID)
		if err != nil {
			return nil, fmt.Errorf("read checkpoint %s: %w", cp.ID, err)
		}
		if slices.ContainsFunc(snaps, func(s store.FileSnapshot) bool { return s.FilePath == path && s.Status == store.FilePending }) {
			sels = append(sels, Selector{Checkpoint: cp.ID, Path: path})
		}
	}
	if len(sels) == 0 {
		if path == "" {
			return nil, fmt.Errorf("session %s has no pending changes", session)
		}
		return nil, fmt.Errorf("%s has no pending changes in session %s", path, session)
	}
	var out []Outcome
	for _, sel := range sels {
		o, err := m.apply(ctx, sel, action)
		if o != nil {
			out = append(out, *o)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
