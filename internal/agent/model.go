package agent

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
)

// modelDetails returns what the server of ctx's turn (setup.go) says
// about model, asking once per model and server: capabilities and trained
// context do not change while a model stays installed.
func (a *Agent) modelDetails(ctx context.Context, model string) (*llm.ModelDetails, error) {
	set := a.using(ctx)
	set.mu.Lock()
	d := set.models[model]
	set.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := set.provider.ShowModel(ctx, model)
	if err != nil {
		return nil, err
	}
	if d.Capabilities.Embedding && !d.Capabilities.Chat && d.Capabilities.Known {
		return nil, fmt.Errorf("model %q is an embedding model and cannot chat; choose a chat model with `olly config set agentMode.model <name>` (see `olly models`)", model)
	}
	set.mu.Lock()
	set.models[model] = d
	set.mu.Unlock()
	return d, nil
}

// numCtx is the context window to request: the model's trained context,
// capped by the per-model cap or agent.maxContextWindow. It is always sent:
// Ollama's default window is far smaller than what agents need, and a
// silently truncated prompt looks to the person like a forgetful model.
func (c Config) numCtx(model string, d *llm.ModelDetails) int {
	modelCap := 0
	if c.ContextCap != nil {
		modelCap = c.ContextCap(model)
	}
	n, _ := llm.NumCtx(d.ContextLength, c.DefaultContextWindow, c.MaxContextWindow, modelCap)
	return n
}

// think is the request's think setting: on when enabled and the model can
// think, off for a thinking model when disabled, and absent for models that
// cannot think (Ollama refuses think for them).
func (c Config) think(d *llm.ModelDetails) *llm.Think {
	if !d.Capabilities.Thinking {
		return nil
	}
	return &llm.Think{Enabled: c.EnableThinking}
}

// toolsRefused handles a request the server refused because the model
// cannot take tools — Ollama's "… does not support tools", met where
// capabilities were guessed (an OpenAI-compatible endpoint that does not
// report them). The model is marked as without tools while the agent talks to
// this server, and this run switches to text tool calls: the system prompt is
// rendered again with the call format and the tool descriptions. It
// reports true when the caller should send the request again.
func (r *run) toolsRefused(ctx context.Context, res *streamResult) bool {
	if res.err == nil || r.req.format != session.FormatNative || !llm.ToolsUnsupported(res.err) ||
		res.display != "" || ctx.Err() != nil {
		return false
	}
	system := r.system
	r.req.useFormat(session.FormatText)
	var err error
	if r.system, err = r.systemPrompt(); err != nil {
		r.req.useFormat(session.FormatNative)
		r.system = system
		return false
	}
	r.set.markNoTools(r.model)
	r.cs.textTools = estimateTools(nil, r.req.specs)
	r.warnTextTools(ctx)
	res.err = nil
	return true
}

// markNoTools records that model cannot take tools: later turns on this
// server start with text tool calls.
func (s *setup) markNoTools(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.models[model]; d != nil {
		c := *d
		c.Capabilities.Tools = false
		s.models[model] = &c
	}
}

// modelRatio is the calibration of token estimates learned for model (0:
// none yet).
func (a *Agent) modelRatio(model string) float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ratios[model]
}

// setModelRatio keeps the calibration learned for model for later turns.
func (a *Agent) setModelRatio(model string, ratio float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ratios == nil {
		a.ratios = map[string]float64{}
	}
	a.ratios[model] = ratio
}
