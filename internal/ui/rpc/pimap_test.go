package rpc

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/rpcproto"
)

// events numbers payloads as one turn's events.
func events(turn int, ps ...event.Payload) []event.Event {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	out := make([]event.Event, len(ps))
	for i, p := range ps {
		out[i] = event.Event{Session: "s", Turn: turn, At: at.Add(time.Duration(i) * time.Millisecond), Data: p}
		if out[i].Durable() {
			out[i].Seq = int64(i + 1)
		}
	}
	return out
}

// piTrace is the mapped events as "type" or "message_update:step" words,
// with the messages that ended.
func piTrace(t *testing.T, evs []event.Event) (string, []rpcproto.PiMessage, []any) {
	t.Helper()
	m := newPiMapper("ollama", false)
	var words []string
	var ended []rpcproto.PiMessage
	var all []any
	for _, ev := range evs {
		for _, pe := range m.Map(ev) {
			all = append(all, pe)
			b, err := json.Marshal(pe)
			if err != nil {
				t.Fatal(err)
			}
			var head struct {
				Type string `json:"type"`
				Step *struct {
					Type string `json:"type"`
				} `json:"assistantMessageEvent"`
			}
			if err := json.Unmarshal(b, &head); err != nil {
				t.Fatal(err)
			}
			w := head.Type
			if head.Step != nil {
				w += ":" + head.Step.Type
			}
			words = append(words, w)
			if me, ok := pe.(rpcproto.PiMessageEvent); ok && me.Type == rpcproto.PiMessageEnd {
				ended = append(ended, *me.Message)
			}
		}
	}
	return strings.Join(words, " "), ended, all
}

func toolTurn() []event.Event {
	call := llm.ToolCall{ID: "call_1", Name: "run_terminal_command", Arguments: json.RawMessage(`{"command":"go test"}`)}
	return events(1,
		event.TurnStarted{Mode: "agent", Model: "m"},
		event.UserMessage{Text: "run the tests"},
		event.ThinkingDelta{Iteration: 1, Text: "I will "},
		event.ThinkingDelta{Iteration: 1, Text: "run them."},
		event.ThinkingBlock{Iteration: 1, Content: "I will run them.", DurationMs: 5},
		event.TextDelta{Iteration: 1, Text: "Running"},
		event.AssistantMessage{Iteration: 1, Text: "Running the tests.", Content: "Running the tests.", ToolCalls: []llm.ToolCall{call}, Model: "m"},
		event.TokenUsage{PromptTokens: 100, CompletionTokens: 20},
		event.ProgressGroupStart{GroupID: "g1", Title: "Running"},
		event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "run_terminal_command", Status: event.ActionRunning},
		event.ToolOutput{ActionID: "a1", Text: "ok pkg\n"},
		event.ProgressGroupStart{GroupID: "g2", ParentGroupID: "g1", Title: "nested"},
		event.ToolAction{GroupID: "g2", ActionID: "x9", Tool: "read_file", Status: event.ActionRunning},
		event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "run_terminal_command", Status: event.ActionSuccess},
		event.ToolResult{ToolCallID: "call_1", ToolName: "run_terminal_command", Content: "ok pkg"},
		event.ProgressGroupFinish{GroupID: "g1"},
		event.ControlMessage{Kind: event.ControlContinuation, Content: "<agent_control>{}</agent_control>", Iteration: 2},
		event.TextDelta{Iteration: 2, Text: "All pass"},
		event.AssistantMessage{Iteration: 2, Content: "All pass.", Model: "m"},
		event.TokenUsage{PromptTokens: 150, CompletionTokens: 5},
		event.FinalMessage{Text: "All pass."},
		event.TurnFinished{Status: event.FinishDone, Iterations: 2},
	)
}

func TestPiMappingOfAToolTurn(t *testing.T) {
	trace, ended, all := piTrace(t, toolTurn())
	want := "agent_start message_start message_end " +
		"turn_start message_start message_update:thinking_start message_update:thinking_delta message_update:thinking_delta message_update:thinking_end " +
		"message_update:text_start message_update:text_delta message_update:text_delta message_update:text_end " +
		"message_update:toolcall_start message_update:toolcall_end message_update:done message_end " +
		"tool_execution_start tool_execution_update tool_execution_end message_start message_end turn_end " +
		// The final answer's text block stays open until the final_message
		// (which adds the "." the stream had not shown yet).
		"turn_start message_start message_update:text_start message_update:text_delta message_update:text_delta message_update:text_end message_update:done message_end " +
		"turn_end agent_end"
	if trace != want {
		t.Errorf("trace\n got %s\nwant %s", trace, want)
	}
	if len(ended) != 4 {
		t.Fatalf("%d messages ended", len(ended))
	}
	first := ended[1]
	if first.Role != rpcproto.PiRoleAssistant || first.StopReason != rpcproto.PiStopToolUse || first.Usage == nil || first.Usage.TotalTokens != 120 {
		t.Errorf("first assistant message %+v", first)
	}
	if len(first.Content) != 3 || first.Content[0].Thinking != "I will run them." || first.Content[1].Text != "Running the tests." ||
		first.Content[2].ID != "call_1" || string(first.Content[2].Arguments) != `{"command":"go test"}` {
		t.Errorf("first assistant content %+v", first.Content)
	}
	if r := ended[2]; r.Role != rpcproto.PiRoleToolResult || r.ToolCallID != "call_1" || r.IsError == nil || *r.IsError || r.Content[0].Text != "ok pkg" {
		t.Errorf("tool result %+v", r)
	}
	// The final answer keeps its text although olly moved it to
	// final_message.
	if last := ended[3]; last.StopReason != rpcproto.PiStopStop || len(last.Content) != 1 || last.Content[0].Text != "All pass." {
		t.Errorf("final message %+v", last)
	}
	for _, pe := range all {
		switch e := pe.(type) {
		case rpcproto.PiToolExecutionUpdateEvent:
			if e.ToolCallID != "call_1" || e.PartialResult.Content[0].Text != "ok pkg\n" {
				t.Errorf("update %+v", e)
			}
		case rpcproto.PiTurnEndEvent:
			if e.Message == nil || e.Message.Role != rpcproto.PiRoleAssistant {
				t.Errorf("turn_end without its message: %+v", e)
			}
		case rpcproto.PiAgentEndEvent:
			if len(e.Messages) != 4 {
				t.Errorf("agent_end carries %d messages", len(e.Messages))
			}
		}
	}
}

func TestPiMappingEndings(t *testing.T) {
	tests := []struct {
		name      string
		evs       []event.Event
		wantStop  string
		wantError string
	}{
		{"canceled mid-stream", events(1,
			event.TurnStarted{}, event.UserMessage{Text: "x"}, event.TextDelta{Iteration: 1, Text: "Let me"},
			event.TurnFinished{Status: event.FinishCanceled}), rpcproto.PiStopAborted, ""},
		{"canceled after the text was recorded", events(1,
			event.TurnStarted{}, event.UserMessage{Text: "x"}, event.TextDelta{Iteration: 1, Text: "Let me"},
			event.AssistantMessage{Iteration: 1, Text: "Let me", Content: "Let me"},
			event.TurnFinished{Status: event.FinishCanceled}), rpcproto.PiStopAborted, ""},
		{"server error mid-stream", events(1,
			event.TurnStarted{}, event.UserMessage{Text: "x"}, event.TextDelta{Iteration: 1, Text: "Let me"},
			event.AssistantMessage{Iteration: 1, Text: "Let me", Content: "Let me"},
			event.Error{Message: "connection reset"}, event.TurnFinished{Status: event.FinishFailed}), rpcproto.PiStopError, "connection reset"},
		{"server unreachable", events(1,
			event.TurnStarted{}, event.UserMessage{Text: "x"},
			event.Error{Message: "cannot reach Ollama"}, event.TurnFinished{Status: event.FinishFailed}), rpcproto.PiStopError, "cannot reach Ollama"},
		{"fallback summary after tools", events(1,
			event.TurnStarted{}, event.UserMessage{Text: "x"},
			event.AssistantMessage{Iteration: 1, Content: "c", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "ls"}}},
			event.ToolResult{ToolCallID: "c1", ToolName: "ls", Content: "a"},
			event.FinalMessage{Text: "Listed the files.", Fallback: true},
			event.TurnFinished{Status: event.FinishMaxIterations}), rpcproto.PiStopStop, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trace, ended, _ := piTrace(t, tt.evs)
			if !strings.HasSuffix(trace, "agent_end") || !strings.HasPrefix(trace, "agent_start") {
				t.Errorf("trace %s", trace)
			}
			last := ended[len(ended)-1]
			if last.Role != rpcproto.PiRoleAssistant || last.StopReason != tt.wantStop || last.ErrorMessage != tt.wantError {
				t.Errorf("last message %+v (trace %s)", last, trace)
			}
		})
	}
}

func TestPiMappingSkipsCommandsAndOtherTurns(t *testing.T) {
	evs := append(events(2,
		event.TurnStarted{Mode: "bash"}, event.UserMessage{Text: "!ls"},
		event.ToolResult{ToolName: "run_terminal_command", Content: "a"}, event.TurnFinished{Status: event.FinishDone}),
		events(0, event.TitleChanged{Title: "t"}, event.KeepUndoResult{CheckpointID: "c", Action: "keep", Success: true})...)
	if trace, _, _ := piTrace(t, evs); trace != "" {
		t.Errorf("mapped %q; a person's command and events outside turns have no pi events", trace)
	}
	// get_messages includes the command.
	msgs := piMessages(evs, "ollama")
	if len(msgs) != 2 || msgs[0].Content[0].Text != "!ls" || msgs[1].Role != rpcproto.PiRoleToolResult {
		t.Errorf("messages %+v", msgs)
	}
}

func TestPiMessagesOfARunningTurn(t *testing.T) {
	evs := events(1, event.TurnStarted{}, event.UserMessage{Text: "x"}, event.TextDelta{Iteration: 1, Text: "Work"})
	msgs := piMessages(evs, "openai")
	if len(msgs) != 2 || msgs[1].Content[0].Text != "Work" || msgs[1].API != "openai-completions" {
		t.Errorf("messages %+v", msgs)
	}
}

func BenchmarkPiMapping(b *testing.B) {
	evs := toolTurn()
	b.ReportAllocs()
	for b.Loop() {
		m := newPiMapper("ollama", false)
		for _, ev := range evs {
			for _, pe := range m.Map(ev) {
				_ = pe
			}
		}
	}
}

// BenchmarkWriteTurn is the cost of writing one tool turn's events to a
// client in both families: encoding, mapping, and the serialized writes.
func BenchmarkWriteTurn(b *testing.B) {
	evs := toolTurn()
	s := &Server{opts: Options{Events: rpcproto.FamilyBoth}, out: &lineWriter{w: io.Discard}, failed: make(chan struct{})}
	b.ReportAllocs()
	for b.Loop() {
		m := newPiMapper("ollama", false)
		for _, ev := range evs {
			s.writeEvent(ev, m)
		}
	}
}
