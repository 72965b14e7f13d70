package store

import (
	"context"
	"fmt"
)

// CatchUp embeds every searchable event the model has no vector for yet,
// batch by batch, and returns when none is left, at the first failure, or
// when ctx ends. Unlike Run it does not wait and retry: a command that is
// about to search by meaning calls it under a deadline and searches with
// what is there. Progress, if set, is called after every stored batch. The
// returned progress carries the final counts (and the failure, if any).
func (ix *Indexer) CatchUp(ctx context.Context) (IndexProgress, error) {
	model := ix.cfg.Embedder.Model
	for {
		n, err := ix.step(ctx)
		p := IndexProgress{Model: model, Err: err}
		var cerr error
		p.Done, p.Total, cerr = ix.s.indexCounts(context.WithoutCancel(ctx), model)
		if err == nil && cerr != nil {
			err = fmt.Errorf("indexer %s: %w", model, cerr)
			p.Err = err
		}
		if err != nil || n == 0 {
			return p, err
		}
		if ix.cfg.Progress != nil {
			ix.cfg.Progress(p)
		}
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
	}
}
