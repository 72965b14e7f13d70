package session

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

func TestCompactionCut(t *testing.T) {
	r1, r2 := call("c1", "read_file", `{"path":"a.go"}`), call("c2", "read_file", `{"path":"b.go"}`)
	w := call("c3", "write_file", `{"path":"a.go","content":"x"}`)
	// seq: 1 user, 2 assistant(r1, r2), 3 result, 4 result, 5 continuation,
	// 6 assistant(w), 7 result, 8 continuation
	turn := []event.Payload{
		event.UserMessage{Text: "fix a.go"},
		event.AssistantMessage{Content: "reading", ToolCalls: []llm.ToolCall{r1, r2}},
		event.ToolResult{ToolCallID: "c1", ToolName: "read_file", Content: "package a"},
		event.ToolResult{ToolCallID: "c2", ToolName: "read_file", Content: "package b"},
		event.ControlMessage{Kind: event.ControlContinuation, Content: packet},
		event.AssistantMessage{Content: "writing", ToolCalls: []llm.ToolCall{w}},
		event.ToolResult{ToolCallID: "c3", ToolName: "write_file", Content: "ok"},
		event.ControlMessage{Kind: event.ControlContinuation, Content: packet},
	}
	tests := []struct {
		name   string
		events []event.Payload
		format Format
		keep   int
		seq    int64
		ok     bool
	}{
		// native: user, A(2), T, T, packet, A, T, packet = 8 messages; the
		// last 6 start at the second result: the cut moves back to its
		// call, keeping 7.
		{"native: a kept result pulls its call in", turn, FormatNative, 6, 2, true},
		// keeping 3 starts at the second assistant message, on its own.
		{"native: the cut on an assistant message stays", turn, FormatNative, 3, 6, true},
		// keeping 2 starts at the write's result: moved to its call.
		{"native: cut on a result moves to its call", turn, FormatNative, 2, 6, true},
		// text: user, A(2), packet+results, A, packet+results = 5.
		{"text: results travel in the packet after their call", turn, FormatText, 3, 2, true},
		{"text: keep 2 cuts at the last assistant", turn, FormatText, 2, 6, true},
		{"nothing before the kept part", turn, FormatNative, 8, 0, false},
		{"shorter than keep", turn[:3], FormatNative, 6, 0, false},
		// After a compaction only the summary precedes the kept messages.
		{"already compacted", append(append([]event.Payload(nil), turn...), event.Compaction{Summary: "S", FirstKeptSeq: 2}), FormatNative, 7, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := BuildConversation(seqEvents(tt.events...))
			seq, ok := c.CompactionCut(tt.format, tt.keep)
			if seq != tt.seq || ok != tt.ok {
				t.Fatalf("CompactionCut = %d, %v; want %d, %v", seq, ok, tt.seq, tt.ok)
			}
			if !ok {
				return
			}
			// Applying the cut leaves no result without its call, and at
			// least keep messages after the summary.
			c.Apply(event.Event{Seq: 100, Data: event.Compaction{Summary: "S", FirstKeptSeq: seq}})
			msgs := c.Messages(tt.format)
			if !IsSummary(msgs[0].Content) || len(msgs)-1 < tt.keep {
				t.Fatalf("after compaction: %+v", msgs)
			}
			for i, m := range msgs {
				if m.Role == llm.RoleTool && m.Content == notRun {
					t.Errorf("message %d: a call lost its result", i)
				}
				if m.Role == llm.RoleUser && strings.Contains(m.Content, "[read_file result]") && !strings.Contains(m.Content, "<agent_control>") {
					t.Errorf("message %d: a result lost its call: %q", i, m.Content)
				}
			}
		})
	}
}

func TestMessagesBefore(t *testing.T) {
	evs := seqEvents(
		event.UserMessage{Text: "one"},
		event.AssistantMessage{Content: "first"},
		event.Compaction{Summary: "S1", FirstKeptSeq: 2},
		event.UserMessage{Text: "two"},
		event.AssistantMessage{Content: "second"},
	)
	c := BuildConversation(evs)
	got := c.MessagesBefore(FormatNative, 4)
	want := []llm.Message{
		{Role: llm.RoleUser, Content: summaryIntro + "S1"},
		{Role: llm.RoleAssistant, Content: "first"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Events of a detached turn carry no seq; the conversation numbers them so
// a compaction cuts an in-memory conversation (sub-agents) correctly.
func TestCompactionWithoutStoredSeqs(t *testing.T) {
	c := NewConversation()
	for _, p := range []event.Payload{
		event.UserMessage{Text: "a"}, event.AssistantMessage{Content: "b"},
		event.UserMessage{Text: "c"}, event.AssistantMessage{Content: "d"},
	} {
		c.Apply(event.Event{Data: p})
	}
	seq, ok := c.CompactionCut(FormatNative, 2)
	if !ok || seq != 3 {
		t.Fatalf("cut = %d, %v; want 3", seq, ok)
	}
	c.Apply(event.Event{Data: event.Compaction{Summary: "S", FirstKeptSeq: seq}})
	c.Apply(event.Event{Data: event.UserMessage{Text: "e"}})
	want := []llm.Message{
		{Role: llm.RoleUser, Content: summaryIntro + "S"},
		{Role: llm.RoleUser, Content: "c"},
		{Role: llm.RoleAssistant, Content: "d"},
		{Role: llm.RoleUser, Content: "e"},
	}
	if diff := cmp.Diff(want, c.Messages(FormatNative)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzCompactionCut builds conversations from random bytes and checks the
// cut's promise: after compacting there, every tool result still follows
// its call, and at least keep messages remain besides the summary.
func FuzzCompactionCut(f *testing.F) {
	f.Add([]byte{0, 1, 2, 2, 3, 1, 2, 3}, uint8(6))
	f.Add([]byte{0, 1, 2, 1, 2, 1, 2, 0, 3}, uint8(2))
	f.Add([]byte{1, 2, 2, 2, 2, 2, 2, 2}, uint8(1))
	f.Fuzz(func(t *testing.T, ops []byte, keep uint8) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		k := int(keep%10) + 1
		for _, format := range []Format{FormatNative, FormatText} {
			c := NewConversation()
			var open []llm.ToolCall
			n := 0
			for i, op := range ops {
				var p event.Payload
				switch op % 4 {
				case 0:
					p, open = event.UserMessage{Text: "u"}, nil
				case 1:
					calls := make([]llm.ToolCall, int(op/4)%3+1)
					for j := range calls {
						n++
						calls[j] = call(strings.Repeat("c", n), "read_file", `{}`)
					}
					open = calls
					p = event.AssistantMessage{Content: "a", ToolCalls: calls}
				case 2:
					if len(open) == 0 {
						p = event.AssistantMessage{Content: "a"}
						break
					}
					p, open = event.ToolResult{ToolCallID: open[0].ID, ToolName: "read_file", Content: "r"}, open[1:]
				default:
					p = event.ControlMessage{Kind: event.ControlContinuation, Content: packet}
				}
				c.Apply(event.Event{Seq: int64(i + 1), Data: p})
			}
			seq, ok := c.CompactionCut(format, k)
			if !ok {
				continue
			}
			before := len(c.Messages(format))
			c.Apply(event.Event{Seq: int64(len(ops) + 1), Data: event.Compaction{Summary: "S", FirstKeptSeq: seq}})
			msgs := c.Messages(format)
			if len(msgs)-1 < k || len(msgs)-1 >= before {
				t.Fatalf("%v keep %d: %d messages before, %d after the summary", format, k, before, len(msgs)-1)
			}
			for i, m := range msgs {
				// Native results are tool messages; one in a user message
				// lost its call.
				if format == FormatNative && m.Role == llm.RoleUser && strings.Contains(m.Content, "[read_file result]") {
					t.Fatalf("message %d is a result whose call was cut: %+v", i, msgs)
				}
			}
		}
	})
}
