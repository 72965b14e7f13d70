package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// announce emits the events of a keep or undo, in the order frontends
// apply them: file_change_result for a file (a hunk that leaves the file
// pending also re-sends the file's new +N −N in files_changed, seed 003
// "Hunk-Level Stats Update"); keep_undo_result for a whole checkpoint, after
// per-file results when some files could not be undone (so the widget drops
// the files that were, and keeps the rest with their new counts).
func (m *Manager) announce(ctx context.Context, c *store.Checkpoint, o *Outcome, all bool) error {
	var errs []error
	emit := func(p event.Payload) { errs = append(errs, m.publish(ctx, c, p)) }
	conflicts := o.Conflicts()
	if !all {
		for _, f := range o.Files {
			emit(fileResult(o, f))
		}
	} else if len(conflicts) > 0 {
		for _, f := range o.Files {
			if f.Resolved {
				emit(fileResult(o, f))
			}
		}
	}
	if changed := pendingFiles(o); len(changed) > 0 && (!all || len(conflicts) > 0) {
		emit(event.FilesChanged{CheckpointID: o.CheckpointID, Files: changed, Status: string(o.Status)})
	}
	if all {
		r := event.KeepUndoResult{CheckpointID: o.CheckpointID, Action: o.Action, Success: len(conflicts) == 0}
		if len(conflicts) > 0 {
			r.Error = conflictSummary(conflicts)
			for _, cf := range conflicts {
				r.Conflicts = append(r.Conflicts, cf.Path+": "+cf.String())
			}
		}
		emit(r)
	}
	return errors.Join(errs...)
}

// fileResult is the file_change_result of one file.
func fileResult(o *Outcome, f FileOutcome) event.FileChangeResult {
	r := event.FileChangeResult{CheckpointID: o.CheckpointID, FilePath: f.Path, Action: o.Action, Hunk: f.Hunk,
		Success: len(f.Conflicts) == 0, Resolved: f.Resolved}
	if len(f.Conflicts) > 0 {
		r.Error = conflictSummary(f.Conflicts)
		for _, c := range f.Conflicts {
			r.Conflicts = append(r.Conflicts, c.String())
		}
	}
	return r
}

// pendingFiles are the outcome's files still pending, with their new
// counts.
func pendingFiles(o *Outcome) []event.ChangedFile {
	var out []event.ChangedFile
	for _, f := range o.Files {
		if !f.Resolved {
			out = append(out, event.ChangedFile{Path: f.Path, Action: f.Action, Additions: f.Additions,
				Deletions: f.Deletions, Status: string(store.FilePending)})
		}
	}
	return out
}

// conflictSummary says what happened and what the person can do.
func conflictSummary(cs []Conflict) string {
	files := map[string]bool{}
	for _, c := range cs {
		files[c.Path] = true
	}
	what := "1 change"
	if len(cs) > 1 {
		what = fmt.Sprintf("%d changes", len(cs))
	}
	where := ""
	if len(files) > 1 {
		where = fmt.Sprintf(" in %d files", len(files))
	}
	return what + where + " could not be undone because the file changed after the agent wrote it; " +
		"the rest was undone. Keep those changes, or edit the file yourself."
}
