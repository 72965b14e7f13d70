package agent

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
)

// modelDetails returns what the server says about model, asking once per
// model for the life of the agent: capabilities and trained context do not
// change while a model stays installed.
func (a *Agent) modelDetails(ctx context.Context, model string) (*llm.ModelDetails, error) {
	a.mu.Lock()
	d := a.models[model]
	a.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := a.provider.ShowModel(ctx, model)
	if err != nil {
		return nil, err
	}
	if d.Capabilities.Embedding && !d.Capabilities.Chat && d.Capabilities.Known {
		return nil, fmt.Errorf("model %q is an embedding model and cannot chat; choose a chat model with `olly config set agentMode.model <name>` (see `olly models`)", model)
	}
	a.mu.Lock()
	a.models[model] = d
	a.mu.Unlock()
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
// report them). The model is marked as without tools for the life of the
// agent and this run switches to text tool calls: the system prompt is
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
	r.a.markNoTools(r.model)
	r.cs.textTools = estimateTools(nil, r.req.specs)
	r.warnTextTools(ctx)
	res.err = nil
	return true
}

// markNoTools records that model cannot take tools: later turns start
// with text tool calls.
func (a *Agent) markNoTools(model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if d := a.models[model]; d != nil {
		c := *d
		c.Capabilities.Tools = false
		a.models[model] = &c
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
