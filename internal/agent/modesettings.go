package agent

import (
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
)

// ModeConfig is a mode's own model settings (chatMode.*, planMode.*):
// they replace agentMode's for turns in that mode.
type ModeConfig struct {
	// Model, when set, runs the mode's turns unless the prompt itself
	// names a model (PromptInput.Model); "": the session's model.
	Model string
	// Temperature and MaxTokens replace agentMode.temperature and
	// agentMode.maxTokens (0 max tokens: the server's limit).
	Temperature float64
	MaxTokens   int
}

// modeConfigsFrom reads the modes that have settings of their own.
func modeConfigsFrom(s *config.Settings) map[event.Mode]ModeConfig {
	return map[event.Mode]ModeConfig{
		event.ModeChat: {Model: s.ChatMode.Model, Temperature: s.ChatMode.Temperature, MaxTokens: s.ChatMode.MaxTokens},
		event.ModePlan: {Model: s.PlanMode.Model, Temperature: s.PlanMode.Temperature, MaxTokens: s.PlanMode.MaxTokens},
	}
}

// forMode applies mode's settings, if it has any, to a run's copy of the
// configuration, and returns the model the run uses: the prompt's own
// (promptModel), else the mode's, else model.
func (c *Config) forMode(mode event.Mode, promptModel, model string) string {
	mc, ok := c.Modes[mode]
	if !ok {
		return model
	}
	c.Temperature, c.MaxTokens = mc.Temperature, mc.MaxTokens
	if promptModel == "" && mc.Model != "" {
		return mc.Model
	}
	return model
}
