package agent

import (
	"context"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// A session's thinking level reaches the wire: Ollama's think as a level
// for gpt-oss and as a boolean for others; OpenAI's reasoning_effort.
func TestThinkingLevelReachesTheRequest(t *testing.T) {
	tests := []struct {
		name, dialect, family, level string
		think, effort                string // wire values; "" absent
	}{
		{"not set: the settings' switch", "ollama", "qwen3", "", "true", ""},
		{"bool model, high", "ollama", "qwen3", ThinkHigh, "true", ""},
		{"bool model, off", "ollama", "qwen3", ThinkOff, "false", ""},
		{"gpt-oss, high", "ollama", "gptoss", ThinkHigh, `"high"`, ""},
		{"gpt-oss, minimal", "ollama", "gptoss", ThinkMinimal, `"low"`, ""},
		{"openai, low", "openai", "qwen3", ThinkLow, "", `"low"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{dialect: tt.dialect, caps: []string{"completion", "thinking"},
				cfg: Config{EnableThinking: true}, model: []llmtest.ModelOption{llmtest.Family(tt.family)}})
			if tt.level != "" {
				if err := h.agent.SetThinkingLevel(h.sess.ID, tt.level); err != nil {
					t.Fatal(err)
				}
			}
			h.srv.Enqueue(llmtest.Reply(llmtest.Text("Hi. [TASK_COMPLETE]")))
			h.prompt("say hi")
			f := h.chats()[0].Fields
			if string(f["think"]) != tt.think || string(f["reasoning_effort"]) != tt.effort {
				t.Errorf("think %s, reasoning_effort %s; want %q, %q", f["think"], f["reasoning_effort"], tt.think, tt.effort)
			}
		})
	}
}

func TestCycleThinkingLevel(t *testing.T) {
	h := newHarness(t, true, harnessOpt{caps: []string{"completion", "thinking"}, model: []llmtest.ModelOption{llmtest.Family("gptoss")}})
	ctx := context.Background()
	var got []string
	for range 5 {
		lvl, ok, err := h.agent.CycleThinkingLevel(ctx, h.sess.ID, testModel)
		if err != nil || !ok {
			t.Fatalf("cycle: %v %v", ok, err)
		}
		got = append(got, lvl)
	}
	if want := "low medium high off low"; join(got) != want {
		t.Errorf("levels %q, want %q", join(got), want)
	}
	if err := h.agent.SetThinkingLevel(h.sess.ID, "max"); err == nil {
		t.Error("a bad level was taken")
	}

	plain := newHarness(t, true, harnessOpt{})
	if _, ok, err := plain.agent.CycleThinkingLevel(ctx, plain.sess.ID, testModel); ok || err != nil {
		t.Errorf("a model that cannot think cycled: %v %v", ok, err)
	}
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}
