package workspace

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"sync"
)

// Files lists up to max files of the workspace (gitignored ones left out)
// as workspace-relative paths, sorted: what the frontends complete @file
// mentions from. A walk that stops at max, or fails part way, returns what
// it found; an error only when it found nothing.
func (w *Workspace) Files(ctx context.Context, max int) ([]string, error) {
	var (
		mu  sync.Mutex // Walk calls back from several goroutines
		out []string
	)
	err := w.Walk(ctx, ".", WalkOptions{}, func(e Entry) error {
		if e.IsDir {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if len(out) >= max {
			return fs.SkipAll
		}
		out = append(out, e.Rel)
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) && len(out) == 0 {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
