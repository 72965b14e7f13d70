package agent

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestRequestOptions(t *testing.T) {
	tests := []struct {
		name     string
		caps     []string
		ctxLen   int
		cfg      Config
		numCtx   int
		think    *llm.Think
		predict  int
		keep     string
		fieldsKA string
	}{
		{"trained context under the cap", nil, 8192, Config{Temperature: 0.4, MaxTokens: 8192, KeepAlive: "30m"}, 8192, nil, 8192, "30m", `"30m"`},
		{"capped by maxContextWindow", nil, 131072, Config{MaxContextWindow: 32768, KeepAlive: "-1"}, 32768, nil, 0, "-1", `-1`},
		{"per-model cap wins", nil, 131072, Config{ContextCap: func(string) int { return 4096 }}, 4096, nil, 0, "", ""},
		{"thinking model, enabled", []string{"completion", "thinking"}, 40960, Config{EnableThinking: true}, 40960, &llm.Think{Enabled: true}, 0, "", ""},
		{"thinking model, disabled", []string{"completion", "thinking"}, 40960, Config{}, 40960, &llm.Think{Enabled: false}, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{caps: tt.caps, ctxLen: tt.ctxLen, cfg: tt.cfg})
			h.srv.Enqueue(llmtest.Reply(llmtest.Text("Hi. [TASK_COMPLETE]"), llmtest.Usage(321, 12)))
			h.prompt("say hi")
			r := h.chats()[0]
			if r.Options.NumCtx == nil || *r.Options.NumCtx != tt.numCtx {
				t.Errorf("num_ctx = %v, want %d (always sent)", r.Options.NumCtx, tt.numCtx)
			}
			if r.Options.Temperature == nil || *r.Options.Temperature != tt.cfg.Temperature {
				t.Errorf("temperature = %v, want %v", r.Options.Temperature, tt.cfg.Temperature)
			}
			if (tt.predict == 0) != (r.Options.NumPredict == nil) || (tt.predict != 0 && *r.Options.NumPredict != tt.predict) {
				t.Errorf("num_predict = %v, want %d", r.Options.NumPredict, tt.predict)
			}
			if (tt.think == nil) != (r.Think == nil) || (tt.think != nil && r.Think.Enabled != tt.think.Enabled) {
				t.Errorf("think = %+v, want %+v", r.Think, tt.think)
			}
			if r.KeepAlive != tt.keep || string(r.Fields["keep_alive"]) != tt.fieldsKA {
				t.Errorf("keep_alive = %q (wire %s), want %q (%s)", r.KeepAlive, r.Fields["keep_alive"], tt.keep, tt.fieldsKA)
			}
			if len(r.Options.Stop) != 0 {
				t.Errorf("stop sequences sent: %q ([TASK_COMPLETE] must reach the completion check)", r.Options.Stop)
			}
			u := payloads[event.TokenUsage](h.live)
			if len(u) != 1 || u[0].PromptTokens != 321 || u[0].CompletionTokens != 12 || u[0].ContextWindow != tt.numCtx || u[0].Estimated {
				t.Errorf("token usage = %+v", u)
			}
		})
	}
}

// The OpenAI dialect pairs results with calls by id: every call must be
// answered, with its id.
func TestOpenAIDialect(t *testing.T) {
	h := newHarness(t, true, harnessOpt{dialect: "openai"})
	h.write("a.txt", "A\n")
	h.srv.Enqueue(
		llmtest.Reply(llmtest.ToolCallID("abc", "read_file", `{"path": "a.txt"}`), llmtest.ToolCallID("abc", "read_file", `{"path": "a.txt"}`)),
		llmtest.Reply(llmtest.Text("It says A. [TASK_COMPLETE]")),
	)
	res := h.prompt("what is in a.txt?")
	if res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	m := h.chats()[1].Messages
	if len(m) < 5 || len(m[2].ToolCalls) != 2 || m[2].ToolCalls[0].ID == m[2].ToolCalls[1].ID ||
		m[3].ToolCallID != m[2].ToolCalls[0].ID || m[4].ToolCallID != m[2].ToolCalls[1].ID {
		t.Fatalf("calls and results are not paired by unique ids: %+v", m)
	}
	h.checkHistory()
}

func TestTextToolsWarningOncePerSession(t *testing.T) {
	h := newHarness(t, false, harnessOpt{})
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("One. [TASK_COMPLETE]")), llmtest.Reply(llmtest.Text("Two. [TASK_COMPLETE]")))
	h.prompt("first")
	h.prompt("second")
	w := payloads[event.Warning](h.live)
	if len(w) != 1 || w[0].Code != "text_tools" || !strings.Contains(w[0].Message, "coder") {
		t.Errorf("warnings = %+v", w)
	}
}

// A second turn's history is the first turn's, as stored, plus the new
// prompt.
func TestSecondTurnContinuesHistory(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.srv.Enqueue(
			llmtest.Reply(h.call("write_file", `{"path": "a.txt", "content": "1\n"}`)),
			llmtest.Reply(llmtest.Text("Wrote a.txt. [TASK_COMPLETE]")),
			llmtest.Reply(llmtest.Text("It holds 1. [TASK_COMPLETE]")),
		)
		h.prompt("create a.txt with 1")
		res := h.prompt("what does it hold?")
		if res.Turn != 2 || res.FinalText != "It holds 1." {
			t.Fatalf("result = %+v", res)
		}
		m := h.chats()[2].Messages
		if m[len(m)-1].Role != llm.RoleUser || m[len(m)-1].Content != "what does it hold?" || m[len(m)-2].Content != "Wrote a.txt." {
			t.Errorf("turn 2 history ends with %+v", m[len(m)-2:])
		}
		h.checkHistory()
		checkParity(t, h)
	})
}
