package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
)

// wireMsg is a message in a comparable form: arguments canonical, index
// and thinking left out (thinking is checked separately: it must be empty).
type wireMsg struct {
	Role, Content, ToolName, ToolCallID string
	Calls                               []wireCall
}

type wireCall struct{ ID, Name, Args string }

func comparable(msgs []llm.Message) []wireMsg {
	out := make([]wireMsg, 0, len(msgs))
	for _, m := range msgs {
		w := wireMsg{Role: string(m.Role), Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			w.Calls = append(w.Calls, wireCall{ID: c.ID, Name: c.Name, Args: string(canonicalJSON(c.Arguments))})
		}
		out = append(out, w)
	}
	return out
}

// checkHistory is the history protocol's main assertion: every request the
// model server received equals the conversation rebuilt from the stored
// log up to that request (a resumed session sees exactly what the live one
// saw), and no request ever carried thinking.
func (h *harness) checkHistory() {
	h.t.Helper()
	evs := h.stored()
	var cuts []int64
	for _, ev := range evs {
		if _, ok := ev.Data.(event.AssistantMessage); ok {
			cuts = append(cuts, ev.Seq)
		}
	}
	format := session.FormatText
	if h.native {
		format = session.FormatNative
	}
	for k, req := range h.chats() {
		if req.DecodeErr != nil {
			h.t.Fatalf("request %d: %v", k, req.DecodeErr)
		}
		if len(req.Messages) == 0 || req.Messages[0].Role != llm.RoleSystem {
			h.t.Fatalf("request %d does not start with the system prompt", k)
		}
		for i, m := range req.Messages {
			if m.Thinking != "" {
				h.t.Errorf("request %d message %d carries thinking %q (pitfall #12)", k, i, m.Thinking)
			}
		}
		cut := int64(1 << 62)
		if k < len(cuts) {
			cut = cuts[k]
		}
		var before []event.Event
		for _, ev := range evs {
			if ev.Seq < cut {
				before = append(before, ev)
			}
		}
		want := comparable(session.BuildConversation(before).Messages(format))
		got := comparable(req.Messages[1:])
		if diff := cmp.Diff(want, got); diff != "" {
			h.t.Errorf("request %d differs from the conversation rebuilt from the store (-rebuilt +sent):\n%s", k, diff)
		}
	}
}

// lastUser returns the last message of request k.
func (h *harness) lastMessage(k int) llm.Message {
	h.t.Helper()
	reqs := h.chats()
	if k >= len(reqs) {
		h.t.Fatalf("only %d requests, want request %d", len(reqs), k)
	}
	m := reqs[k].LastMessage()
	if m == nil {
		h.t.Fatalf("request %d has no messages", k)
	}
	return *m
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}
