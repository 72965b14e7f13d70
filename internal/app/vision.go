package app

import (
	"context"
	"sort"

	"github.com/olly-agent/olly/internal/models"
)

// visionModels names the enabled models that can read images, from the
// models table (refreshed from the server when it answers, the cached
// list when it does not), for the error a prompt with images gets on a
// model without vision.
func (a *App) visionModels(ctx context.Context) []string {
	list, _, err := models.NewCatalog(a.Provider).WithCache(a.Store).ListOrCached(ctx)
	if err != nil {
		a.Log.Warn("list the models that can read images", "error", err)
		return nil
	}
	var out []string
	for _, m := range list {
		c := m.Capabilities
		if m.Enabled && c.Vision && !(c.Embedding && !c.Chat) {
			out = append(out, m.Name)
		}
	}
	sort.Strings(out)
	return out
}
