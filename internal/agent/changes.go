package agent

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// changeReporter is the turn's checkpoint (tools.Env.Snapshots, a
// *checkpoint.Run): after a batch that wrote files it records what the
// agent wrote — which is what lets undo tell the agent's lines from the
// person's later edits — and shows the changed files.
type changeReporter interface {
	Report(ctx context.Context) (*event.FilesChanged, error)
}

// reportChanges tells the checkpoint about a batch's writes.
func (r *run) reportChanges(ctx context.Context, batch *batchResult) {
	rep, ok := r.env.Snapshots.(changeReporter)
	if !ok || batch == nil || len(batch.wrote) == 0 {
		return
	}
	// Recorded even when the turn is being canceled: the files were
	// written, and undo needs to know what olly wrote.
	if _, err := rep.Report(context.WithoutCancel(ctx)); err != nil {
		_ = r.emit(context.WithoutCancel(ctx), event.Warning{Code: "checkpoint",
			Message: fmt.Sprintf("The changes were written but could not be recorded for review (%v); olly changes may not list them.", err)})
	}
}
