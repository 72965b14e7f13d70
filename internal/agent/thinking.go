package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// Thinking levels (pi's ThinkingLevel). A session's level says how much a
// model that can think should: off, or how hard. Ollama takes a level
// only for models trained with them (gpt-oss: low, medium, high) and a
// boolean otherwise; OpenAI-compatible servers take it as
// reasoning_effort.
const (
	ThinkOff     = "off"
	ThinkMinimal = "minimal"
	ThinkLow     = "low"
	ThinkMedium  = "medium"
	ThinkHigh    = "high"
	ThinkXHigh   = "xhigh"
)

// ThinkingLevels lists the levels, least first.
func ThinkingLevels() []string {
	return []string{ThinkOff, ThinkMinimal, ThinkLow, ThinkMedium, ThinkHigh, ThinkXHigh}
}

// ThinkingLevel returns session id's thinking level: the one a frontend
// set, else medium with agent.enableThinking and off without.
func (a *Agent) ThinkingLevel(id string) string {
	a.mu.Lock()
	lvl := a.thinking[id]
	a.mu.Unlock()
	if lvl != "" {
		return lvl
	}
	if a.current().cfg.EnableThinking {
		return ThinkMedium
	}
	return ThinkOff
}

// SetThinkingLevel sets session id's thinking level from its next turn
// on. It is not stored: it lasts as long as this olly runs.
func (a *Agent) SetThinkingLevel(id, level string) error {
	level = strings.TrimSpace(level)
	if !slices.Contains(ThinkingLevels(), level) {
		return fmt.Errorf("%q is not a thinking level: use one of %s", level, strings.Join(ThinkingLevels(), ", "))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.thinking == nil {
		a.thinking = map[string]string{}
	}
	a.thinking[id] = level
	return nil
}

// ModelThinkingLevels lists the levels model can tell apart, or nil when
// it cannot think: off, low, medium and high where levels reach the model
// (gpt-oss on Ollama; any thinking model on an OpenAI-compatible
// server), off and medium (on) where only a switch does.
func (a *Agent) ModelThinkingLevels(ctx context.Context, model string) ([]string, error) {
	d, err := a.modelDetails(ctx, model)
	if err != nil {
		return nil, err
	}
	if !d.Capabilities.Thinking {
		return nil, nil
	}
	if a.using(ctx).levelsReachModel(d) {
		return []string{ThinkOff, ThinkLow, ThinkMedium, ThinkHigh}, nil
	}
	return []string{ThinkOff, ThinkMedium}, nil
}

// CycleThinkingLevel moves session id to the next level model tells
// apart (after the last, the first). It reports false, changing nothing,
// for a model that cannot think.
func (a *Agent) CycleThinkingLevel(ctx context.Context, id, model string) (string, bool, error) {
	levels, err := a.ModelThinkingLevels(ctx, model)
	if err != nil || levels == nil {
		return "", false, err
	}
	cur := a.ThinkingLevel(id)
	next := levels[0]
	// The next distinct level above the current one (a level the model
	// does not tell apart counts as the one at or below it).
	for _, l := range levels {
		if rank(l) > rank(cur) {
			next = l
			break
		}
	}
	return next, true, a.SetThinkingLevel(id, next)
}

func rank(level string) int { return slices.Index(ThinkingLevels(), level) }

// levelsReachModel: the request can carry a level for this model.
func (s *setup) levelsReachModel(d *llm.ModelDetails) bool {
	if s.provider.Dialect() != "ollama" {
		return true // reasoning_effort
	}
	return takesThinkLevels(d)
}

// takesThinkLevels: an Ollama model whose think field takes a level
// (gpt-oss) rather than a boolean.
func takesThinkLevels(d *llm.ModelDetails) bool {
	name := strings.ToLower(d.Name)
	return strings.EqualFold(d.Family, "gptoss") || strings.Contains(name, "gpt-oss")
}

// thinkFor is what a turn of session id asks of model d: the settings'
// switch (agent.enableThinking) until a frontend set a level, then the
// level as the model takes it.
func (a *Agent) thinkFor(set *setup, id string, d *llm.ModelDetails) *llm.Think {
	a.mu.Lock()
	lvl := a.thinking[id]
	a.mu.Unlock()
	if lvl == "" || !d.Capabilities.Thinking {
		return set.cfg.think(d)
	}
	if lvl == ThinkOff {
		return &llm.Think{Enabled: false}
	}
	if !set.levelsReachModel(d) {
		return &llm.Think{Enabled: true}
	}
	effort := lvl
	if set.provider.Dialect() == "ollama" || lvl == ThinkXHigh {
		// Ollama's levels are low, medium and high; xhigh is no
		// server's.
		switch lvl {
		case ThinkMinimal:
			effort = ThinkLow
		case ThinkXHigh:
			effort = ThinkHigh
		}
	}
	return &llm.Think{Enabled: true, Level: effort}
}
