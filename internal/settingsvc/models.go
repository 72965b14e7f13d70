package settingsvc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/toolcall"
	"github.com/olly-agent/olly/rpcproto"
)

// ModelStore is the model cache with the person's per-model settings
// (*store.Store).
type ModelStore interface {
	models.Cache
	SetModelEnabled(ctx context.Context, name string, enabled bool) error
	SetModelContextCap(ctx context.Context, name string, limit int) error
}

// ListModels lists the server's models (the cache when it cannot be
// reached) with capabilities, context lengths and the person's settings.
func (s *Service) ListModels(ctx context.Context) (*rpcproto.ListModelsResult, error) {
	cfg, list, offline, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := &rpcproto.ListModelsResult{Models: []rpcproto.ModelInfo{}}
	if offline != nil {
		out.Offline = offline.Error()
	}
	for _, m := range list {
		out.Models = append(out.Models, wireModel(m, cfg))
	}
	return out, nil
}

func (s *Service) catalog(ctx context.Context) (*config.Config, []models.Model, error, error) {
	if s.Models == nil {
		return nil, nil, nil, errors.New("no model cache in this olly")
	}
	cfg, err := s.Load()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the settings do not load: %w", err)
	}
	p, err := s.NewProvider(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	list, offline, err := models.NewCatalog(p).WithCache(s.Models).ListOrCached(ctx)
	return cfg, list, offline, err
}

// wireModel is one model as list_models shows it.
func wireModel(m models.Model, cfg *config.Config) rpcproto.ModelInfo {
	c := m.Capabilities
	out := rpcproto.ModelInfo{Name: m.Name, Size: m.Size, Family: m.Family, ParameterSize: m.ParameterSize,
		QuantizationLevel: m.QuantizationLevel, ContextLength: m.ContextLength, Capabilities: models.CapabilityWords(c),
		CapabilitiesKnown: c.Known, Running: m.Running, Enabled: m.Enabled, NumCtxCap: m.NumCtxCap, Cached: m.Cached,
		Dialect: string(m.Dialect)}
	out.NumCtx, out.NumCtxFrom = llm.NumCtx(m.ContextLength, cfg.ContextWindow, cfg.Agent.MaxContextWindow, m.NumCtxCap)
	if m.Err != nil {
		out.Error = m.Err.Error()
	}
	return out
}

// SetModelEnabled enables or disables a model the server or the cache
// knows.
func (s *Service) SetModelEnabled(ctx context.Context, req rpcproto.SetModelEnabledRequest) (*rpcproto.ModelResult, error) {
	return s.changeModel(ctx, req.Name, func(name string) error { return s.Models.SetModelEnabled(ctx, name, req.Enabled) })
}

// SetModelContext caps (or uncaps, with 0) the context window olly
// requests for a model.
func (s *Service) SetModelContext(ctx context.Context, req rpcproto.SetModelContextRequest) (*rpcproto.ModelResult, error) {
	n := req.Context
	if err := models.CheckContextCap(n); err != nil {
		return nil, fmt.Errorf("field context: %w", err)
	}
	return s.changeModel(ctx, req.Name, func(name string) error { return s.Models.SetModelContextCap(ctx, name, n) })
}

// changeModel applies a change to a known model (":latest" may be left
// out) and returns the model as it now is.
func (s *Service) changeModel(ctx context.Context, name string, change func(name string) error) (*rpcproto.ModelResult, error) {
	cfg, list, _, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	cached, err := s.Models.Models(ctx)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, m := range cached {
		known[m.Name] = true
	}
	for _, m := range list {
		known[m.Name] = true
	}
	resolved, ok := models.ResolveName(known, name)
	if !ok {
		return nil, fmt.Errorf("field name: no model %q on the server or in the cache (list_models lists them)", strings.TrimSpace(name))
	}
	name = resolved
	if err := change(name); err != nil {
		return nil, err
	}
	_, list, _, err = s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range list {
		if m.Name == name {
			return &rpcproto.ModelResult{Model: wireModel(m, cfg)}, nil
		}
	}
	// Cached but not installed: its settings are kept for when it is.
	if cached, err = s.Models.Models(ctx); err != nil {
		return nil, err
	}
	for _, m := range cached {
		if m.Name == name {
			d := llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: m.Name, Size: m.Size, Family: m.Family}, ContextLength: m.ContextLength}
			dialect, _ := toolcall.ParseDialect(m.Dialect)
			mm := models.Model{ModelDetails: d, Enabled: m.Enabled, NumCtxCap: m.NumCtxCap, Cached: true, Dialect: dialect}
			return &rpcproto.ModelResult{Model: wireModel(mm, cfg)}, nil
		}
	}
	return &rpcproto.ModelResult{}, nil
}

var _ ModelStore = (*store.Store)(nil)
