package agent

import (
	"time"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
)

// Continuation strategies (agent.continuationStrategy): how much the
// <agent_control> packet between iterations carries.
const (
	StrategyFull     = "full"     // iteration budget, changed files and a note
	StrategyStandard = "standard" // iteration budget and a note
	StrategyMinimal  = "minimal"  // a bare continue
)

// defaultContextWindow is the window assumed when neither the server nor
// the settings say: small and safe.
const defaultContextWindow = 4096

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
	// Modes holds the modes with settings of their own (chatMode,
	// planMode): their turns use those instead of Model, Temperature
	// and MaxTokens (modesettings.go).
	Modes map[event.Mode]ModeConfig
	// MaxContextWindow is agent.maxContextWindow, the cap on num_ctx
	// (default 65536).
	MaxContextWindow int
	// DefaultContextWindow is contextWindow, assumed when the server does
	// not report a model's context length (default 4096, Ollama's own
	// default: assuming more than the server runs the model with makes it
	// cut the prompt).
	DefaultContextWindow int
	// ContextCap returns a per-model cap on num_ctx (the models table),
	// which takes precedence over MaxContextWindow; nil or 0: none.
	ContextCap func(model string) int
	// KeepAlive is agent.keepAlive ("" leaves the server's default).
	KeepAlive string
	// Tools names the tools the orchestrator (agent mode) is offered and
	// may call: agent.orchestratorTools (write_file, run_terminal_command,
	// run_subagent), so reading and searching go through sub-agents. Nil
	// offers every registered tool. The read-only modes have their own
	// sets (modes.go).
	Tools []string
	// MaxAttachmentBytes caps each @path attachment (default 100 000).
	MaxAttachmentBytes int

	// ExplorerModel is agent.explorerModel, the sub-agents' model after
	// the session's own choice; "": the orchestrator's model.
	ExplorerModel string
	// Classify asks the model to classify each agent-mode prompt (the
	// dispatcher, dispatch.go) to route it and to decide whether it needs
	// writes. False keeps the keyword heuristic for the write check and
	// never routes (tests, benchmarks).
	Classify bool
	// DispatchTimeout bounds the classification call, retries included
	// (default 10 s); past it the turn runs with the fallback (mixed).
	DispatchTimeout time.Duration
	// SubagentConcurrency is how many run_subagent calls of one response
	// run at the same time (default 3).
	SubagentConcurrency int
	// ScratchDir is where each session gets a scratch directory for
	// throwaway files, deleted when the turn ends (the state directory's
	// scratch/); "": none.
	ScratchDir string
	// ProjectContextBytes bounds the project context given to read-only
	// modes and sub-agents (default 12 000).
	ProjectContextBytes int
	// UserConfigDir is olly's configuration directory (config.Paths), where
	// the person's own AGENTS.md, skills and commands live; "": none
	// (tests).
	UserConfigDir string
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
		Modes:                modeConfigsFrom(s),
		MaxContextWindow:     s.Agent.MaxContextWindow,
		DefaultContextWindow: s.ContextWindow,
		KeepAlive:            s.Agent.KeepAlive,
		Tools:                append([]string(nil), s.Agent.OrchestratorTools...),
		ExplorerModel:        s.Agent.ExplorerModel,
		Classify:             true,
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
		c.DefaultContextWindow = defaultContextWindow
	}
	if c.MaxAttachmentBytes <= 0 {
		c.MaxAttachmentBytes = 100_000
	}
	if c.DispatchTimeout <= 0 {
		c.DispatchTimeout = defaultDispatchTimeout
	}
	if c.SubagentConcurrency <= 0 {
		c.SubagentConcurrency = defaultSubagentConcurrency
	}
	if c.ProjectContextBytes <= 0 {
		c.ProjectContextBytes = defaultProjectContextBytes
	}
	return c
}
