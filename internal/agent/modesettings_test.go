package agent

import (
	"context"
	"testing"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// chatMode.* and planMode.* reach the request the server receives; other
// modes keep agentMode's.
func TestModeSettingsReachTheRequest(t *testing.T) {
	s := &config.Settings{}
	s.AgentMode.Temperature, s.AgentMode.MaxTokens = 0.4, 8192
	s.ChatMode.Model, s.ChatMode.Temperature, s.ChatMode.MaxTokens = "chatty", 0.7, 2048
	s.PlanMode.Temperature, s.PlanMode.MaxTokens = 0.5, 4096
	cfg := ConfigFrom(s)
	cfg.Model, cfg.Classify = testModel, false
	tests := []struct {
		mode        event.Mode
		promptModel string
		model       string
		temp        float64
		predict     int
	}{
		{event.ModeChat, "", "chatty", 0.7, 2048},
		{event.ModeChat, testModel, testModel, 0.7, 2048}, // the prompt's own model wins
		{event.ModePlan, "", testModel, 0.5, 4096},        // planMode.model unset: the session's
		{event.ModeExplore, "", testModel, 0.4, 8192},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+"/"+tt.promptModel, func(t *testing.T) {
			h := newModeHarness(t, modeOpt{cfg: cfg, extra: map[string][]string{"chatty": {"completion", "tools"}}})
			h.srv.Enqueue(llmtest.Reply(llmtest.Text("# Plan\n1. do it [TASK_COMPLETE]")))
			res, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "how?", Mode: tt.mode, Model: tt.promptModel})
			if err != nil {
				t.Fatal(err)
			}
			h.drain(res.Turn)
			r := h.chats()[0]
			if r.Model != tt.model {
				t.Errorf("model = %q, want %q", r.Model, tt.model)
			}
			if r.Options.Temperature == nil || *r.Options.Temperature != tt.temp {
				t.Errorf("temperature = %v, want %v", r.Options.Temperature, tt.temp)
			}
			if r.Options.NumPredict == nil || *r.Options.NumPredict != tt.predict {
				t.Errorf("num_predict = %v, want %d", r.Options.NumPredict, tt.predict)
			}
		})
	}
}
