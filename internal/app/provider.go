// Package app is olly's composition root: the one place that knows every
// service. It builds them from the settings and hands each its dependencies
// through its constructor (the seed's ServiceContainer).
package app

import (
	"fmt"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/llm/openai"
)

// NewProvider returns the model-server client the settings ask for, with
// the default retry policy and the timeouts of the settings.
func NewProvider(cfg *config.Config) (llm.Provider, error) {
	return NewProviderWithRetry(cfg, llm.DefaultRetry())
}

// NewProviderWithRetry is NewProvider with a chosen retry policy (olly
// doctor wants a quick answer, not three retries).
func NewProviderWithRetry(cfg *config.Config, retry llm.RetryPolicy) (llm.Provider, error) {
	timeouts := llm.Timeouts{Connect: cfg.Timeouts.Connect, Response: cfg.Timeouts.Response, Idle: cfg.Timeouts.Idle}
	switch cfg.Provider {
	case "ollama", "":
		opts := []ollama.Option{ollama.WithRetry(retry), ollama.WithTimeouts(timeouts)}
		if cfg.APIKey != "" {
			opts = append(opts, ollama.WithToken(cfg.APIKey))
		}
		return ollama.New(cfg.BaseURL, opts...)
	case "openai":
		opts := []openai.Option{openai.WithRetry(retry), openai.WithTimeouts(timeouts)}
		if cfg.APIKey != "" {
			opts = append(opts, openai.WithAPIKey(cfg.APIKey))
		}
		return openai.New(cfg.BaseURL, opts...)
	}
	return nil, fmt.Errorf("unknown provider %q: set provider to ollama or openai", cfg.Provider)
}
