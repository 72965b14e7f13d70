package agent

import "github.com/olly-agent/olly/internal/config"

// Continuation strategies (agent.continuationStrategy): how much the
// <agent_control> packet between iterations carries.
const (
	StrategyFull     = "full"     // iteration budget, changed files and a note
	StrategyStandard = "standard" // iteration budget and a note
	StrategyMinimal  = "minimal"  // a bare continue
)

// Config is what the agent reads from the settings.
type Config struct {
	// Model is agentMode.model, used when the session names no model.
	Model string
	// MaxIterations is agent.maxIterations (default 25).
	MaxIterations int
	// ContinuationStrategy is agent.continuationStrategy (default full).
	ContinuationStrategy string
	// EnableThinking is agent.enableThinking: ask models that can think to
	// do so (and tell those that think by default not to when false).
	EnableThinking bool
	// Temperature and MaxTokens are agentMode.temperature and
	// agentMode.maxTokens (num_predict; 0 sends none).
	Temperature float64
	MaxTokens   int
	// MaxContextWindow is agent.maxContextWindow, the cap on num_ctx
	// (default 65536).
	MaxContextWindow int
	// DefaultContextWindow is contextWindow, assumed when the server does
	// not report a model's trained context length (default 16000).
	DefaultContextWindow int
	// ContextCap returns a per-model cap on num_ctx (the models table),
	// which takes precedence over MaxContextWindow; nil or 0: none.
	ContextCap func(model string) int
	// KeepAlive is agent.keepAlive ("" leaves the server's default).
	KeepAlive string
	// Tools names the tools offered to the model; nil offers every
	// registered tool. (Once sub-agents exist the composition root passes
	// agent.orchestratorTools here.)
	Tools []string
	// MaxAttachmentBytes caps each @path attachment (default 100 000).
	MaxAttachmentBytes int
}

// ConfigFrom reads the agent's settings.
func ConfigFrom(s *config.Settings) Config {
	return Config{
		Model:                s.AgentMode.Model,
		MaxIterations:        s.Agent.MaxIterations,
		ContinuationStrategy: s.Agent.ContinuationStrategy,
		EnableThinking:       s.Agent.EnableThinking,
		Temperature:          s.AgentMode.Temperature,
		MaxTokens:            s.AgentMode.MaxTokens,
		MaxContextWindow:     s.Agent.MaxContextWindow,
		DefaultContextWindow: s.ContextWindow,
		KeepAlive:            s.Agent.KeepAlive,
	}
}

func (c Config) withDefaults() Config {
	if c.MaxIterations <= 0 {
		c.MaxIterations = 25
	}
	switch c.ContinuationStrategy {
	case StrategyFull, StrategyStandard, StrategyMinimal:
	default:
		c.ContinuationStrategy = StrategyFull
	}
	if c.MaxContextWindow <= 0 {
		c.MaxContextWindow = 65536
	}
	if c.DefaultContextWindow <= 0 {
		c.DefaultContextWindow = 16000
	}
	if c.MaxAttachmentBytes <= 0 {
		c.MaxAttachmentBytes = 100_000
	}
	return c
}
