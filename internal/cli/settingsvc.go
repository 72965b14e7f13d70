package cli

import (
	"context"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/settingsvc"
	"github.com/olly-agent/olly/internal/store"
)

// settingsService answers the protocol's settings commands (RPC mode and
// olly serve): the same layers and files as `olly config`, the same model
// table as `olly models`.
// A write reaches a, the running olly (nil: none), from its next turn for
// the keys it applies live (app.LiveSetting).
func (f *Factory) settingsService(st *store.Store, a *app.App) *settingsvc.Service {
	newProvider := f.NewProvider
	if newProvider == nil {
		// One try: a connection test wants a quick answer.
		newProvider = func(cfg *config.Config) (llm.Provider, error) {
			return app.NewProviderWithRetry(cfg, llm.RetryPolicy{})
		}
	}
	svc := &settingsvc.Service{
		Load: func() (*config.Config, error) {
			opts, err := f.ConfigOptions()
			if err != nil {
				return nil, err
			}
			return config.Load(opts)
		},
		NewProvider: newProvider,
		Models:      st,
	}
	if a != nil {
		svc.Live = app.LiveSetting
		svc.Apply = func(ctx context.Context, cfg *config.Config) ([]string, []string, error) {
			res, err := a.Reconfigure(ctx, cfg)
			return res.Applied, res.Restart, err
		}
	}
	return svc
}

// appProviders are the model-server clients app.App builds when the
// connection settings change: the ones a test injected (NewProvider), or
// nil for the real ones.
func (f *Factory) appProviders() func(*config.Config, llm.RetryPolicy) (llm.Provider, error) {
	if f.NewProvider == nil {
		return nil
	}
	return func(cfg *config.Config, _ llm.RetryPolicy) (llm.Provider, error) { return f.NewProvider(cfg) }
}
