package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// seqEvents numbers payloads as a stored log would.
func seqEvents(ps ...event.Payload) []event.Event {
	out := make([]event.Event, len(ps))
	for i, p := range ps {
		out[i] = event.Event{Session: "s", Seq: int64(i + 1), Turn: 1, Data: p}
	}
	return out
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

const packet = "<agent_control>{\"state\":\"need_tools\"}</agent_control>\nDo NOT repeat your previous response."

func TestConversationFormats(t *testing.T) {
	read := call("c1", "read_file", `{"path":"a.go"}`)
	grep := call("c2", "search_workspace", `{"query":"Parse"}`)
	turn := []event.Payload{
		event.TurnStarted{Mode: "agent"},
		event.UserMessage{Text: "fix @a.go", Content: "Contents of a.go …\n\nfix @a.go"},
		event.ThinkingBlock{Iteration: 1, Content: "secret reasoning"},
		event.AssistantMessage{Iteration: 1, Text: "", Content: "I read a.go and searched for 'Parse'", ToolCalls: []llm.ToolCall{read, grep}},
		event.ToolResult{ToolCallID: "c1", ToolName: "read_file", Content: "package a"},
		event.ToolResult{ToolCallID: "c2", ToolName: "search_workspace", Content: "── a.go ──"},
		event.ControlMessage{Kind: event.ControlNote, Content: "[SYSTEM NOTE] stale", Iteration: 1},
		event.ControlMessage{Kind: event.ControlReminder, Content: "Reminder — your task: fix", Iteration: 1},
		event.ControlMessage{Kind: event.ControlContinuation, Content: packet, Iteration: 1},
		event.AssistantMessage{Iteration: 2, Text: "Fixed.", Content: "Fixed."},
		event.ControlMessage{Kind: event.ControlNote, Content: "[SYSTEM NOTE] fresh", Iteration: 2},
	}
	c := BuildConversation(seqEvents(turn...))
	native := []llm.Message{
		{Role: llm.RoleUser, Content: "Contents of a.go …\n\nfix @a.go"},
		// Only the model's own text (none) goes with native calls: the
		// summary is for the text format.
		{Role: llm.RoleAssistant, Content: "", ToolCalls: []llm.ToolCall{read, grep}},
		{Role: llm.RoleTool, Content: "package a", ToolName: "read_file", ToolCallID: "c1"},
		{Role: llm.RoleTool, Content: "── a.go ──", ToolName: "search_workspace", ToolCallID: "c2"},
		// The stale note and reminder (the model answered after them) are
		// gone; the packet stays.
		{Role: llm.RoleUser, Content: packet},
		{Role: llm.RoleAssistant, Content: "Fixed."},
		{Role: llm.RoleUser, Content: "[SYSTEM NOTE] fresh"},
	}
	if diff := cmp.Diff(native, c.Messages(FormatNative)); diff != "" {
		t.Errorf("native (-want +got):\n%s", diff)
	}
	text := []llm.Message{
		{Role: llm.RoleUser, Content: "Contents of a.go …\n\nfix @a.go"},
		{Role: llm.RoleAssistant, Content: "I read a.go and searched for 'Parse'\n[Called:] read_file, search_workspace"},
		{Role: llm.RoleUser, Content: "<agent_control>{\"state\":\"need_tools\"}\n[read_file result]\npackage a\n\n[search_workspace result]\n── a.go ──\n</agent_control>\nDo NOT repeat your previous response."},
		{Role: llm.RoleAssistant, Content: "Fixed."},
		{Role: llm.RoleUser, Content: "[SYSTEM NOTE] fresh"},
	}
	if diff := cmp.Diff(text, c.Messages(FormatText)); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

func TestConversationEdgeCases(t *testing.T) {
	w := call("w1", "write_file", `{"path":"b.go","content":"x"}`)
	r := call("r1", "read_file", `{"path":"b.go"}`)
	tests := []struct {
		name   string
		events []event.Payload
		format Format
		want   []llm.Message
	}{
		{
			name:   "native calls carry no summary; an empty answer gets the reasoning marker",
			events: []event.Payload{event.AssistantMessage{ToolCalls: []llm.ToolCall{w}}, event.ToolResult{ToolCallID: "w1", ToolName: "write_file", Content: "ok"}, event.AssistantMessage{}},
			format: FormatNative,
			want: []llm.Message{
				{Role: llm.RoleAssistant, Content: "", ToolCalls: []llm.ToolCall{w}},
				{Role: llm.RoleTool, Content: "ok", ToolName: "write_file", ToolCallID: "w1"},
				{Role: llm.RoleAssistant, Content: ReasoningCompleted},
			},
		},
		{
			name:   "the model's own text goes with native calls; legacy events with only a content keep it",
			events: []event.Payload{event.AssistantMessage{Text: "Let me look.", Content: "Let me look.", ToolCalls: []llm.ToolCall{r}}, event.ToolResult{ToolCallID: "r1", ToolName: "read_file", Content: "x"}},
			format: FormatNative,
			want: []llm.Message{
				{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{r}},
				{Role: llm.RoleTool, Content: "x", ToolName: "read_file", ToolCallID: "r1"},
			},
		},
		{
			name:   "a call without result is answered (interrupted turn), so strict servers accept the history",
			events: []event.Payload{event.AssistantMessage{Content: "go", ToolCalls: []llm.ToolCall{w, r}}, event.ToolResult{ToolCallID: "w1", ToolName: "write_file", Content: "ok"}, event.UserMessage{Text: "next"}},
			format: FormatNative,
			want: []llm.Message{
				{Role: llm.RoleAssistant, Content: "go", ToolCalls: []llm.ToolCall{w, r}},
				{Role: llm.RoleTool, Content: "ok", ToolName: "write_file", ToolCallID: "w1"},
				{Role: llm.RoleTool, Content: notRun, ToolName: "read_file", ToolCallID: "r1"},
				{Role: llm.RoleUser, Content: "next"},
			},
		},
		{
			name:   "a result without id is matched by name",
			events: []event.Payload{event.AssistantMessage{Content: "go", ToolCalls: []llm.ToolCall{r}}, event.ToolResult{ToolName: "read_file", Content: "x"}},
			format: FormatNative,
			want: []llm.Message{
				{Role: llm.RoleAssistant, Content: "go", ToolCalls: []llm.ToolCall{r}},
				{Role: llm.RoleTool, Content: "x", ToolName: "read_file", ToolCallID: "r1"},
			},
		},
		{
			name:   "text results with no packet after them get a packet of their own",
			events: []event.Payload{event.AssistantMessage{Content: "go", ToolCalls: []llm.ToolCall{r}}, event.ToolResult{ToolCallID: "r1", ToolName: "read_file", Content: "x"}, event.UserMessage{Text: "next"}},
			format: FormatText,
			want: []llm.Message{
				{Role: llm.RoleAssistant, Content: "go\n[Called:] read_file"},
				{Role: llm.RoleUser, Content: "<agent_control>\n[read_file result]\nx\n</agent_control>"},
				{Role: llm.RoleUser, Content: "next"},
			},
		},
		{
			name:   "compaction keeps the summary and the messages from firstKeptSeq",
			events: []event.Payload{event.UserMessage{Text: "old"}, event.AssistantMessage{Content: "old answer"}, event.UserMessage{Text: "kept"}, event.Compaction{Summary: "S", FirstKeptSeq: 3}, event.AssistantMessage{Content: "new"}},
			format: FormatNative,
			want: []llm.Message{
				{Role: llm.RoleUser, Content: summaryIntro + "S"},
				{Role: llm.RoleUser, Content: "kept"},
				{Role: llm.RoleAssistant, Content: "new"},
			},
		},
		{
			name:   "a result whose call was compacted away travels as text",
			events: []event.Payload{event.AssistantMessage{Content: "go", ToolCalls: []llm.ToolCall{r}}, event.ToolResult{ToolCallID: "r1", ToolName: "read_file", Content: "x"}, event.Compaction{Summary: "S", FirstKeptSeq: 2}},
			format: FormatNative,
			want: []llm.Message{
				{Role: llm.RoleUser, Content: summaryIntro + "S"},
				{Role: llm.RoleUser, Content: "[read_file result]\nx"},
			},
		},
		{
			name:   "thinking on an event never reaches a message",
			events: []event.Payload{event.ThinkingBlock{Content: "t"}, event.AssistantMessage{Text: "shown", Content: ""}},
			format: FormatNative,
			want:   []llm.Message{{Role: llm.RoleAssistant, Content: "shown"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BuildConversation(seqEvents(tt.events...)).Messages(tt.format)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolCallSummary(t *testing.T) {
	tests := []struct {
		calls []llm.ToolCall
		want  string
	}{
		{nil, ReasoningCompleted},
		{[]llm.ToolCall{call("", "search_workspace", `{"query":"parseArgs"}`), call("", "read_file", `{"path":"src/args.go"}`)}, "I searched for 'parseArgs' and read src/args.go"},
		{[]llm.ToolCall{call("", "run_terminal_command", `{"command":"go test ./...\nmore"}`), call("", "list_files", `{}`), call("", "find_symbol", `{"symbolName":"Run"}`)}, "I ran `go test ./...…`, listed the workspace root and looked up Run with find_symbol"},
		{[]llm.ToolCall{call("", "run_subagent", `{"title":"Map the auth flow"}`), call("", "mystery", `not json`)}, "I asked a sub-agent to map the auth flow and called mystery"},
	}
	for _, tt := range tests {
		if got := ToolCallSummary(tt.calls); got != tt.want {
			t.Errorf("ToolCallSummary = %q, want %q", got, tt.want)
		}
	}
}

func TestTitleFromPrompt(t *testing.T) {
	tests := map[string]string{
		"  add a test\nfor Parse": "add a test",
		"\n\nfix   the   bug":     "fix the bug",
		"rename every use of the old configuration loader to the new one in all packages": "rename every use of the old configuration loader to the…",
	}
	for in, want := range tests {
		if got := TitleFromPrompt(in); got != want {
			t.Errorf("TitleFromPrompt(%q) = %q, want %q", in, got, want)
		}
	}
}
