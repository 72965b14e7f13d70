package checkpoint

import (
	"context"
	"sort"
	"strings"

	"github.com/olly-agent/olly/internal/store"
)

// Hunk is one change left to review in a file.
type Hunk struct {
	// Number is the 1-based hunk number keep and undo take.
	Number int `json:"number"`
	// OldStart is the 1-based line of the original the hunk replaces from
	// (for a pure insertion, the line it goes before); OldLines how many.
	OldStart int `json:"oldStart"`
	OldLines int `json:"oldLines"`
	// NewStart and NewLines place the hunk's lines in the current file
	// (in what the agent wrote, when Stale).
	NewStart int `json:"newStart"`
	NewLines int `json:"newLines"`
	// OldText is what undo puts back, NewText what the agent wrote.
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
	// ContextBefore and ContextAfter are up to three unchanged lines either
	// side, for display.
	ContextBefore string `json:"contextBefore,omitempty"`
	ContextAfter  string `json:"contextAfter,omitempty"`
	// WholeFile marks the single change of a file kept or undone only as a
	// whole (binary, over 4 MB, or an empty new file); it has no text.
	WholeFile bool `json:"wholeFile,omitempty"`
	// Stale is true when the current file no longer holds the hunk as the
	// agent wrote it: undo would report Reason as a conflict.
	Stale  bool   `json:"stale,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// FileReview is one file with changes left to review.
type FileReview struct {
	CheckpointID string `json:"checkpointId"`
	Path         string `json:"path"`
	Action       string `json:"action"` // created | modified
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	// Binary files (and files over 4 MB) are kept or undone as a whole.
	Binary bool `json:"binary,omitempty"`
	// Deleted is true when the file is no longer on disk.
	Deleted bool   `json:"deleted,omitempty"`
	Hunks   []Hunk `json:"hunks"`
	// EarlierCheckpoints are older checkpoints of the review with pending
	// changes to the same file; they come up once this one is resolved.
	EarlierCheckpoints []string `json:"earlierCheckpoints,omitempty"`
}

// Review returns the files left to review in the given checkpoints,
// ordered oldest checkpoint first and, within one, in the order the agent
// first wrote them. A file changed in several checkpoints appears once, at
// its first place, with the state of its newest pending snapshot (seed
// 003, buildReviewSession); files with nothing left to review are left out.
func (m *Manager) Review(ctx context.Context, checkpointIDs []string) ([]FileReview, error) {
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cps, err := m.sortedCheckpoints(ctx, checkpointIDs)
	if err != nil {
		return nil, err
	}
	var out []FileReview
	at := map[string]int{}
	for _, c := range cps {
		snaps, err := m.st.Snapshots(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		for _, s := range snaps {
			if s.Status != store.FilePending {
				continue
			}
			f, err := m.loadFile(s)
			if err != nil {
				return nil, err
			}
			if f.changeCount() == 0 {
				continue
			}
			fr := f.review()
			if i, ok := at[s.FilePath]; ok {
				fr.EarlierCheckpoints = append(out[i].EarlierCheckpoints, out[i].CheckpointID)
				out[i] = fr
				continue
			}
			at[s.FilePath] = len(out)
			out = append(out, fr)
		}
	}
	return out, nil
}

// sortedCheckpoints reads the checkpoints, oldest first (ids break ties
// within a millisecond: the manager hands them out in order).
func (m *Manager) sortedCheckpoints(ctx context.Context, ids []string) ([]store.Checkpoint, error) {
	seen := map[string]bool{}
	var cps []store.Checkpoint
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := m.checkpoint(ctx, id)
		if err != nil {
			return nil, err
		}
		cps = append(cps, *c)
	}
	sort.SliceStable(cps, func(i, j int) bool {
		if !cps[i].CreatedAt.Equal(cps[j].CreatedAt) {
			return cps[i].CreatedAt.Before(cps[j].CreatedAt)
		}
		return cps[i].ID < cps[j].ID
	})
	return cps, nil
}

// review describes the file's remaining changes.
func (f *file) review() FileReview {
	adds, dels := f.stats()
	fr := FileReview{CheckpointID: f.snap.CheckpointID, Path: f.snap.FilePath, Action: f.action(),
		Additions: adds, Deletions: dels, Binary: !f.text, Deleted: !f.exists}
	if f.wholeFile() {
		h := Hunk{Number: 1, WholeFile: true, OldStart: 1, OldLines: countLines(f.orig), NewStart: 1, NewLines: countLines(f.written)}
		fr.Hunks = []Hunk{h}
		return fr
	}
	curL := splitLines(f.cur)
	for i, s := range f.spans {
		fr.Hunks = append(fr.Hunks, f.hunk(i, s, curL))
	}
	return fr
}

// hunk describes span s, placed in the current file when it is still there.
func (f *file) hunk(i int, s span, curL []string) Hunk {
	h := Hunk{Number: i + 1, OldStart: s.oldFrom + 1, OldLines: s.oldTo - s.oldFrom, NewLines: s.newTo - s.newFrom,
		OldText: strings.Join(f.origL[s.oldFrom:s.oldTo], ""), NewText: strings.Join(f.writtenL[s.newFrom:s.newTo], "")}
	from, to, reason := 0, 0, reasonDeleted
	if f.irregular {
		reason = reasonIrregular
	}
	if f.exists {
		from, to, reason = locate(f.writtenL, curL, s)
	}
	lines := curL
	if reason != "" {
		h.Stale, h.Reason = true, reason
		lines, from, to = f.writtenL, s.newFrom, s.newTo
	}
	h.NewStart = from + 1
	h.ContextBefore = strings.Join(lines[max(0, from-contextLines):from], "")
	h.ContextAfter = strings.Join(lines[to:min(len(lines), to+contextLines)], "")
	return h
}
