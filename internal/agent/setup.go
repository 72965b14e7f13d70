package agent

import (
	"context"
	"errors"
	"sync"

	"github.com/olly-agent/olly/internal/llm"
)

// setup is what a settings change replaces (Reconfigure): the model
// server's client, the agent's settings, and what was learned of that
// server's models. A turn takes the setup current when it starts and keeps
// it to its end — its sub-agents and the one-shot calls it makes
// (classification, compaction) included — so a turn in progress finishes
// on the server and with the settings it started with, and the next turn
// uses the new ones.
type setup struct {
	provider llm.Provider
	cfg      Config

	mu sync.Mutex
	// models caches the server's answers per model (model.go): a new
	// server may have other models under the same names.
	models map[string]*llm.ModelDetails
}

func newSetup(p llm.Provider, cfg Config) *setup {
	return &setup{provider: p, cfg: cfg.withDefaults(), models: map[string]*llm.ModelDetails{}}
}

// Reconfigure makes p and cfg the agent's from the next turn on: turns in
// progress finish with what they started with. What the agent keeps per
// session (thinking levels, automatic compaction and retry switches) is
// kept. olly's settings page calls it through internal/app when a
// connection or agent setting changes.
func (a *Agent) Reconfigure(p llm.Provider, cfg Config) error {
	if p == nil {
		return errors.New("agent: no model provider")
	}
	a.set.Store(newSetup(p, cfg))
	return nil
}

// setupKey keys the setup a turn pinned in its context.
type setupKey struct{}

// pin returns ctx carrying the current setup, for a turn (RunTurn,
// RunCommand, Compact) to keep to its end. A context that already carries
// one (a sub-agent's, inside its parent's turn) keeps it.
func (a *Agent) pin(ctx context.Context) (context.Context, *setup) {
	if s, ok := ctx.Value(setupKey{}).(*setup); ok {
		return ctx, s
	}
	s := a.set.Load()
	return context.WithValue(ctx, setupKey{}, s), s
}

// using is the setup of ctx's turn, or the current one outside a turn (a
// title, a frontend's question about a model).
func (a *Agent) using(ctx context.Context) *setup {
	if s, ok := ctx.Value(setupKey{}).(*setup); ok {
		return s
	}
	return a.set.Load()
}

// current is the setup the next turn will take.
func (a *Agent) current() *setup { return a.set.Load() }
