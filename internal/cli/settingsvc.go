package cli

import (
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/settingsvc"
	"github.com/olly-agent/olly/internal/store"
)

// settingsService answers the protocol's settings commands (RPC mode and
// olly serve): the same layers and files as `olly config`, the same model
// table as `olly models`.
func (f *Factory) settingsService(st *store.Store) *settingsvc.Service {
	newProvider := f.NewProvider
	if newProvider == nil {
		// One try: a connection test wants a quick answer.
		newProvider = func(cfg *config.Config) (llm.Provider, error) {
			return app.NewProviderWithRetry(cfg, llm.RetryPolicy{})
		}
	}
	return &settingsvc.Service{
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
}
