package app

import (
	"context"
	"sync/atomic"

	"github.com/olly-agent/olly/internal/llm"
)

// liveProvider is App.Provider: the model-server client of the current
// settings for everything but turns (listings, the embedder, the vision
// lookup), so a connection change (Reconfigure) reaches them at once.
// Turns get the client itself (agent.Agent.Reconfigure), since a turn in
// progress must finish on the server it started with.
type liveProvider struct{ cur atomic.Pointer[clients] }

// clients are the two clients of one set of connection settings: with
// retries for turns and background work, without for a frontend's
// questions (a server that is down is reported at once).
type clients struct{ turns, quick llm.Provider }

func (l *liveProvider) set(turns, quick llm.Provider) {
	l.cur.Store(&clients{turns: turns, quick: quick})
}

func (l *liveProvider) clients() (turns, quick llm.Provider) {
	c := l.cur.Load()
	return c.turns, c.quick
}

func (l *liveProvider) p() llm.Provider { return l.cur.Load().turns }

// Dialect implements llm.Provider.
func (l *liveProvider) Dialect() string { return l.p().Dialect() }

// BaseURL implements llm.Provider.
func (l *liveProvider) BaseURL() string { return l.p().BaseURL() }

// Chat implements llm.Provider.
func (l *liveProvider) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	return l.p().Chat(ctx, req)
}

// Generate implements llm.Provider.
func (l *liveProvider) Generate(ctx context.Context, req *llm.GenerateRequest) (llm.Stream[llm.GenerateChunk], error) {
	return l.p().Generate(ctx, req)
}

// ListModels implements llm.Provider.
func (l *liveProvider) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	return l.p().ListModels(ctx)
}

// ShowModel implements llm.Provider.
func (l *liveProvider) ShowModel(ctx context.Context, model string) (*llm.ModelDetails, error) {
	return l.p().ShowModel(ctx, model)
}

// RunningModels implements llm.Provider.
func (l *liveProvider) RunningModels(ctx context.Context) ([]llm.RunningModel, error) {
	return l.p().RunningModels(ctx)
}

// Embed implements llm.Provider.
func (l *liveProvider) Embed(ctx context.Context, req *llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return l.p().Embed(ctx, req)
}

// Version implements llm.Provider.
func (l *liveProvider) Version(ctx context.Context) (string, error) { return l.p().Version(ctx) }

var _ llm.Provider = (*liveProvider)(nil)
