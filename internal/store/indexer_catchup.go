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
	// Counted once: each batch adds what it stored. Counting again per
	// batch would scan both indexes every 32 events.
	p := IndexProgress{Model: model}
	var err error
	if p.Done, p.Total, err = ix.s.indexCounts(ctx, model); err != nil {
		p.Err = fmt.Errorf("indexer %s: %w", model, err)
		return p, p.Err
	}
	for {
		n, err := ix.step(ctx)
		p.Done += n
		if p.Done > p.Total {
			p.Total = p.Done // events appended meanwhile
		}
		if err != nil || n == 0 {
			p.Err = err
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
