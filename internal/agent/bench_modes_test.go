package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/workspace"
)

// historyRun is a prepared agent-mode run whose conversation holds about
// msgs messages: the task, then iterations of an assistant call, its
// result (1 KB) and the continuation.
func historyRun(b *testing.B, mode event.Mode, msgs int) *run {
	b.Helper()
	reg := allTools(b)
	prov := &memProvider{keep: true, details: llm.ModelDetails{ContextLength: 131072,
		Capabilities: llm.Capabilities{Known: true, Chat: true, Tools: true}}}
	a, err := New(Deps{Provider: prov, Tools: reg, Config: Config{Model: "m", Tools: orchestratorTools()}})
	if err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.New([]string{b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	hist := session.NewConversation()
	var seq int64
	apply := func(p event.Payload) {
		seq++
		hist.Apply(event.Event{Seq: seq, Data: p})
	}
	apply(event.UserMessage{Text: "rename Parse to ParseArgs everywhere and update the tests"})
	result := strings.Repeat("func Parse(args []string) (*Options, error) { // line of code\n", 16)
	for i := 0; len(hist.Messages(session.FormatNative)) < msgs; i++ {
		id := fmt.Sprintf("call_%d", i)
		args, _ := json.Marshal(map[string]string{"task": fmt.Sprintf("read part %d", i), "title": "Read"})
		apply(event.AssistantMessage{Iteration: i + 1, Content: "Next part.", ToolCalls: []llm.ToolCall{{ID: id, Name: "run_subagent", Arguments: args}}})
		apply(event.ToolResult{ToolCallID: id, ToolName: "run_subagent", Content: result})
		apply(event.ControlMessage{Kind: event.ControlContinuation, Iteration: i + 1,
			Content: `<agent_control>{"state":"need_tools","iteration":3}</agent_control>` + "\n" + antiRepetition})
	}
	emit := func(_ context.Context, p event.Payload) (event.Event, error) { return event.Event{Data: p}, nil }
	t := session.NewTurn("s", 2, ws, session.PromptInput{Text: "go on", Mode: mode}, hist, emit)
	r, err := a.newRun(context.Background(), t)
	if err != nil {
		b.Fatal(err)
	}
	if !r.begin(context.Background()) {
		b.Fatal("the run did not start")
	}
	return r
}

// BenchmarkPromptAssembly is the agent's own work per iteration before
// and after the model call, with a 200-message history: the system prompt
// rendered, the request built from the conversation (with its estimate and
// the compaction check) and the token usage estimated. Target ≤ 2 ms.
func BenchmarkPromptAssembly(b *testing.B) {
	for _, mode := range []event.Mode{event.ModeAgent, event.ModeExplore} {
		b.Run(string(mode), func(b *testing.B) {
			r := historyRun(b, mode, 200)
			ctx := context.Background()
			res := &streamResult{display: "I will read the next part."}
			b.ReportAllocs()
			var n int
			for b.Loop() {
				sys, err := r.systemPrompt()
				if err != nil {
					b.Fatal(err)
				}
				r.system = sys
				req := r.req.prepare(ctx, r.iter)
				n = len(req.Messages)
				_ = r.usage(res)
			}
			b.ReportMetric(float64(n), "messages")
		})
	}
}
