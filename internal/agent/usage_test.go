package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/tools"
)

func sum(c event.TokenCategories) int {
	return c.System + c.ToolDefinitions + c.Messages + c.ToolResults + c.Files + c.Instructions
}

// The breakdown is scaled to the server's count: its categories add up to
// prompt_eval_count exactly, and each category is where it should be.
func TestTokenUsageSumsToRealCount(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.write("notes.md", strings.Repeat("Some notes about the project. ", 40))
		h.write("a.txt", fileOf2K("a.txt"))
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("Reading."), h.call("read_file", `{"path": "a.txt"}`), llmtest.Usage(4999, 7)),
			llmtest.Reply(llmtest.Text("It is about lines. [TASK_COMPLETE]"), llmtest.Usage(7321, 9)),
		)
		h.prompt("what does a.txt say, given @notes.md?")
		u := payloads[event.TokenUsage](h.live)
		if len(u) != 2 {
			t.Fatalf("%d token_usage events, want one per iteration", len(u))
		}
		for i, want := range []int{4999, 7321} {
			if u[i].PromptTokens != want || sum(u[i].Categories) != want || u[i].Estimated || u[i].ContextWindow != 40960 {
				t.Errorf("iteration %d: %+v (categories sum to %d)", i+1, u[i], sum(u[i].Categories))
			}
		}
		c1, c2 := u[0].Categories, u[1].Categories
		if c1.System == 0 || c1.ToolDefinitions == 0 || c1.Files == 0 || c1.ToolResults != 0 {
			t.Errorf("first request: %+v (system, tool definitions and the attached file; no results yet)", c1)
		}
		if c2.ToolResults == 0 || c2.Messages == 0 {
			t.Errorf("second request: %+v (the read's result and the messages)", c2)
		}
	})
}

// Without counts from the server the estimate is reported, marked.
func TestTokenUsageEstimated(t *testing.T) {
	p := &memProvider{details: llm.ModelDetails{ContextLength: 8192, Capabilities: llm.Capabilities{Known: true, Chat: true, Tools: true}},
		replies: [][]llm.ChatChunk{{{Content: "Hello there. [TASK_COMPLETE]"}, {Done: true}}}}
	reg, _ := tools.NewRegistry(tools.ReadFile{})
	a, err := New(Deps{Provider: p, Tools: reg, Config: Config{Model: "m"}, Clock: &noTicks{*newManualClock()}})
	if err != nil {
		t.Fatal(err)
	}
	var got []event.TokenUsage
	turn := session.NewTurn("s", 1, nil, session.PromptInput{Text: "say hello"}, nil, func(_ context.Context, pl event.Payload) (event.Event, error) {
		if u, ok := pl.(event.TokenUsage); ok {
			got = append(got, u)
		}
		return event.Event{Data: pl}, nil
	})
	if _, err := a.RunTurn(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("token usage = %+v", got)
	}
	u := got[0]
	if !u.Estimated || u.PromptTokens != sum(u.Categories) || u.PromptTokens < 100 || u.CompletionTokens != estimateTokens("Hello there.") {
		t.Errorf("estimated usage = %+v", u)
	}
}

func TestScaleCategories(t *testing.T) {
	tests := []struct {
		name string
		c    event.TokenCategories
		real int
		want event.TokenCategories
	}{
		{"exact", event.TokenCategories{System: 10, Messages: 30}, 80, event.TokenCategories{System: 20, Messages: 60}},
		{"remainders to the largest", event.TokenCategories{System: 1, ToolDefinitions: 1, Messages: 1}, 10, event.TokenCategories{System: 4, ToolDefinitions: 3, Messages: 3}},
		{"down", event.TokenCategories{System: 500, ToolResults: 499, Files: 1}, 3, event.TokenCategories{System: 2, ToolResults: 1}},
		{"nothing estimated", event.TokenCategories{}, 42, event.TokenCategories{System: 42}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scaleCategories(tt.c, sum(tt.c), tt.real)
			if got != tt.want || sum(got) != tt.real {
				t.Errorf("scale(%+v, %d) = %+v, want %+v", tt.c, tt.real, got, tt.want)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"The quick brown fox jumps over the lazy dog.", 10},
		{"if err != nil {", 5},
		{"estimateTokensByCategory", 4},
		{"1234567", 3},
		{"func main() {\n\treturn\n}", 8},
		{"日本語のテキスト", 8},
		{"   indented", 3},
	}
	for _, tt := range tests {
		if got := estimateTokens(tt.text); got != tt.want {
			t.Errorf("estimateTokens(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestSplitUser(t *testing.T) {
	packet := "Reminder — your task: x\n\n<agent_control>{\"state\":\"need_tools\"}\n[read_file result]\n" + strings.Repeat("code line\n", 50) + "</agent_control>\nDo NOT repeat your previous response."
	msgs, results, files := splitUser(nil, packet)
	if results < 100 || msgs == 0 || msgs > 40 || files != 0 {
		t.Errorf("packet: messages %d, results %d, files %d", msgs, results, files)
	}
	msgs, results, files = splitUser(nil, "Contents of a.go "+attachmentMarker+"\n```\npackage a\n```\n\nfix it")
	if files == 0 || msgs != 0 || results != 0 {
		t.Errorf("attachment: messages %d, results %d, files %d", msgs, results, files)
	}
}

// numCtx: the trained context capped by agent.maxContextWindow, or by the
// per-model cap, which takes precedence (it may be larger or smaller than
// the global cap, never larger than the trained context).
func TestNumCtxPrecedence(t *testing.T) {
	capOf := func(n int) func(string) int { return func(string) int { return n } }
	tests := []struct {
		name    string
		trained int
		cfg     Config
		want    int
	}{
		{"trained under the global cap", 8192, Config{}, 8192},
		{"global cap", 131072, Config{MaxContextWindow: 32768}, 32768},
		{"default global cap", 131072, Config{}, 65536},
		{"per-model cap under the global one", 131072, Config{MaxContextWindow: 32768, ContextCap: capOf(4096)}, 4096},
		{"per-model cap over the global one wins", 131072, Config{MaxContextWindow: 32768, ContextCap: capOf(100000)}, 100000},
		{"never over the trained context", 16384, Config{ContextCap: capOf(100000)}, 16384},
		{"no per-model cap for this model", 131072, Config{MaxContextWindow: 20000, ContextCap: capOf(0)}, 20000},
		{"unknown trained context: contextWindow", 0, Config{DefaultContextWindow: 12000}, 12000},
		{"unknown trained context, capped", 0, Config{DefaultContextWindow: 12000, ContextCap: capOf(8000)}, 8000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cfg.withDefaults().numCtx("m", &llm.ModelDetails{ContextLength: tt.trained})
			if got != tt.want {
				t.Errorf("num_ctx = %d, want %d", got, tt.want)
			}
		})
	}
}

// estimateBenchRequest is a 200-message history: a system prompt, tool
// definitions and a mix of prompts, answers with calls, 1-4 KB file reads
// and control packets.
func estimateBenchRequest(tb testing.TB) (*run, *llm.ChatRequest) {
	reg, err := tools.NewRegistry(tools.Core()...)
	if err != nil {
		tb.Fatal(err)
	}
	r := &run{req: requestBuilder{specs: reg.Specs()}}
	req := &llm.ChatRequest{Tools: r.req.specs, Messages: []llm.Message{{Role: llm.RoleSystem, Content: strings.Repeat("You are olly, a coding agent. Follow the rules below.\n", 80)}}}
	code := "func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\thttp.Error(w, err.Error(), 400)\n\t\treturn\n\t}\n}\n"
	for i := 0; len(req.Messages) < 201; i++ {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: "I'll look at the handler next.", ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: []byte(`{"path":"server/handler.go","start_line":1,"end_line":400,"why":"see it"}`)}}},
			llm.Message{Role: llm.RoleTool, ToolName: "read_file", ToolCallID: id, Content: strings.Repeat(code, 8+i%24)},
			llm.Message{Role: llm.RoleUser, Content: "Reminder — your task: fix the handler\n\n<agent_control>{\"state\":\"need_tools\",\"iteration\":3}</agent_control>\nDo NOT repeat your previous response."},
		)
	}
	req.Messages = req.Messages[:201]
	return r, req
}

// The incremental estimate (tokenCache) gives what counting everything
// again gives, as a request grows, is trimmed, compacted and edited in
// place, and drops what no request carries any more.
func TestIncrementalEstimate(t *testing.T) {
	r, req := estimateBenchRequest(t)
	fresh := func() requestEstimate { return (&contextState{}).estimate(req, 0) }
	check := func(step string) {
		t.Helper()
		if got, want := r.cs.estimate(req, 0), fresh(); got != want {
			t.Fatalf("%s: incremental %+v, counted again %+v", step, got, want)
		}
	}
	check("first")
	check("again")
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, Content: strings.Repeat("more output ", 40)})
	check("a result added")
	req.Messages[5].Content = shorten(req.Messages[5].Content, trimKeep)
	check("a result shortened")
	req.Messages[1].ToolCalls[0].Arguments[3] = '.' // same slice, other bytes: "p.th"
	check("arguments changed in place")
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleUser, Content: "<agent_control>{\"state\":\"need_tools\"}\n[read_file result]\n" + strings.Repeat("package x\n", 30) + "</agent_control>\nGo on."},
		llm.Message{Role: llm.RoleUser, Content: "main.go " + attachmentMarker + "\n" + strings.Repeat("func main() {}\n", 20)})
	check("text results and attachments")
	req.Messages[2], req.Messages[3] = req.Messages[3], req.Messages[2]
	check("two messages swapped")
	req.Messages[3].Role = llm.RoleAssistant // the tool result, now at 3
	check("a role changed")
	req.Messages = append(req.Messages[:1], llm.Message{Role: llm.RoleUser, Content: "Summary of the earlier conversation: " + strings.Repeat("it read files. ", 20)})
	check("compacted")
	r.cs.estimate(req, 0)
	carried := map[string]bool{}
	for _, m := range req.Messages {
		carried[m.Content] = true
	}
	for _, s := range req.Tools {
		carried[s.Description], carried[string(s.Parameters)] = true, true
	}
	for _, e := range r.cs.tokens.m {
		if !carried[e.s] {
			t.Errorf("still cached after two requests without it: %.60q", e.s)
		}
	}
	if len(r.cs.tokens.m) == 0 {
		t.Error("nothing cached")
	}
}

// BenchmarkEstimateRequest estimates a 200-message history (the
// per-iteration cost of the token breakdown and of the compaction check):
// "first" counts every string, as the first request of a run does; "again"
// is every later request, which carries the same strings (tokenCache).
func BenchmarkEstimateRequest(b *testing.B) {
	r, req := estimateBenchRequest(b)
	bytes := 0
	for _, m := range req.Messages {
		bytes += len(m.Content)
	}
	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.cs.tokens, r.cs.counted = tokenCache{}, countedMessages{}
			r.cs.estimate(req, 0)
		}
		b.ReportMetric(float64(bytes), "history-bytes")
	})
	b.Run("again", func(b *testing.B) {
		b.ReportAllocs()
		r.cs.estimate(req, 0)
		for b.Loop() {
			r.cs.estimate(req, 0)
		}
		b.ReportMetric(float64(bytes), "history-bytes")
	})
	// kept: the caller knows all but the last message are the last
	// request's (session.Render), as the agent's requests do.
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		r.cs.estimate(req, 0)
		for b.Loop() {
			r.cs.estimate(req, len(req.Messages)-2)
		}
		b.ReportMetric(float64(bytes), "history-bytes")
	})
}

// An estimate told that a prefix is the last request's (same) gives what
// counting everything again gives, as the request grows, its system
// message changes and its tail is rendered anew.
func TestEstimateKeptPrefix(t *testing.T) {
	r, full := estimateBenchRequest(t)
	req := &llm.ChatRequest{Tools: full.Tools, Messages: full.Messages[:3:3]}
	r.cs.estimate(req, 0)
	for n := 4; n <= len(full.Messages); n++ {
		same := len(req.Messages) - 2 // the last message is re-rendered
		msgs := append(slices.Clone(req.Messages[:len(req.Messages)-1]), full.Messages[len(req.Messages)-1:n]...)
		msgs[len(msgs)-1].Content += " "
		if n%7 == 0 {
			msgs[0].Content = fmt.Sprintf("system %d", n)
		}
		req = &llm.ChatRequest{Tools: full.Tools, Messages: msgs}
		got, want := r.cs.estimate(req, same), (&contextState{}).estimate(req, 0)
		if got != want {
			t.Fatalf("%d messages, %d kept: incremental %+v, counted again %+v", n, same, got, want)
		}
	}
}
