package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// renderScript drives a conversation from ops (one byte each) and checks,
// after each op, that Render — kept marks, one slice per format, as the
// agent calls it — and AppendMessages give what a full rendering gives,
// and that the messages Render says it kept are the last call's. Per
// format, one caller passes a fresh copy each time and one passes its own
// slice back, clearing the tail a shorter rendering left (as the agent's
// request does, internal/agent/request.go); the latter switch format
// every 7 ops, passing the mark of the other format.
func renderScript(t *testing.T, ops []byte) {
	t.Helper()
	c := NewConversation()
	loads := false
	loader := func(context.Context, string) ([]byte, error) {
		if !loads {
			return nil, errors.New("not now")
		}
		return []byte("PNG"), nil
	}
	var seq int64
	apply := func(p event.Payload) {
		seq++
		c.Apply(event.Event{Seq: seq, Data: p})
	}
	type slot struct {
		msgs []llm.Message
		mark RenderMark
	}
	var slots [4]slot // format i%2; i >= 2 reuse their own slice
	var calls []string
	for k, op := range ops {
		switch op % 12 {
		case 0:
			apply(event.UserMessage{Text: fmt.Sprintf("prompt %d", k)})
		case 1:
			ref := event.ImageRef{MimeType: "image/png", SHA256: fmt.Sprint(k), Size: 3}
			apply(event.UserMessage{Text: "look", Attachments: []event.Attachment{{Path: "a.png", Image: &ref}}})
		case 2, 3:
			n := int(op/12) % 3
			var tcs []llm.ToolCall
			calls = calls[:0]
			for j := 0; j < n; j++ {
				id := fmt.Sprintf("call_%d_%d", k, j)
				calls = append(calls, id)
				tcs = append(tcs, llm.ToolCall{ID: id, Name: "read_file", Arguments: []byte(fmt.Sprintf(`{"i":%d}`, j))})
			}
			apply(event.AssistantMessage{Content: fmt.Sprintf("answer %d", k), Text: fmt.Sprintf("answer %d", k), ToolCalls: tcs})
		case 4, 5:
			id := "orphan"
			if len(calls) > 0 {
				id, calls = calls[0], calls[1:]
			}
			apply(event.ToolResult{ToolCallID: id, ToolName: "read_file", Content: fmt.Sprintf("result %d", k)})
		case 6:
			apply(event.ControlMessage{Kind: event.ControlNote, Content: fmt.Sprintf("note %d", k)})
		case 7:
			apply(event.ControlMessage{Kind: event.ControlReminder, Content: fmt.Sprintf("reminder %d", k)})
		case 8:
			apply(event.ControlMessage{Kind: event.ControlContinuation, Content: packet})
		case 9:
			seq++
			c.Apply(event.Event{Seq: seq, Data: event.Compaction{Summary: "summary", FirstKeptSeq: seq - int64(op/12)%8}})
		case 10:
			loads = !loads
			c.SetImageLoader(loader)
		case 11:
			slots[op/12%4].mark = RenderMark{} // a caller that starts over
		}
		for i := range slots {
			s, f := &slots[i], i%2
			if i >= 2 {
				f = (i + k/7) % 2 // the format changes every 7 ops, the mark kept
			}
			prev := append([]llm.Message(nil), s.msgs...)
			sys := llm.Message{Role: llm.RoleSystem, Content: "system"}
			var same int
			var in []llm.Message
			if i < 2 {
				in = append([]llm.Message{sys}, s.msgs[min(1, len(s.msgs)):]...)
			} else if in = s.msgs; len(in) == 0 {
				in = append(in, sys)
			}
			in[0] = sys
			s.msgs, s.mark, same = c.Render(in, 1, Format(f), s.mark)
			if len(in) > len(s.msgs) {
				clear(in[len(s.msgs):])
			}
			c.mu.Lock()
			want := render(c.entries, Format(f), false, c.images, []llm.Message{sys}).out
			c.mu.Unlock()
			if !reflect.DeepEqual(want, s.msgs) {
				t.Fatalf("op %d (%d), format %d: Render differs from a full rendering (-want +got):\n%s", k, op, f, cmp.Diff(want, s.msgs))
			}
			if same > 0 {
				if same > len(prev)-1 {
					t.Fatalf("op %d, format %d: Render kept %d messages of %d", k, f, same, len(prev)-1)
				}
				if !reflect.DeepEqual(prev[1:1+same], s.msgs[1:1+same]) {
					t.Fatalf("op %d, format %d: the %d messages Render kept changed:\n%s", k, f, same, cmp.Diff(prev[1:1+same], s.msgs[1:1+same]))
				}
			}
			if got := c.AppendMessages(nil, Format(f)); !reflect.DeepEqual(want[1:], got) {
				t.Fatalf("op %d, format %d: AppendMessages differs:\n%s", k, f, cmp.Diff(want[1:], got))
			}
		}
	}
}

func TestRenderIncremental(t *testing.T) {
	for _, ops := range [][]byte{
		{0, 2 + 12, 4, 8, 2 + 24, 4, 4, 6, 2, 7, 0, 2, 4, 9 + 36, 2 + 12, 4, 8},
		{1, 2, 6, 7, 8, 10, 1, 2 + 12, 4, 10, 0, 2, 9, 4, 11, 2 + 12, 5, 11 + 12, 2},
		{0, 8, 8, 2 + 24, 5, 5, 5, 6, 0, 2 + 12, 9 + 12*7, 4, 2, 3},
	} {
		renderScript(t, ops)
	}
	// A long conversation: the final part grows by appends.
	var long []byte
	for i := 0; i < 150; i++ {
		long = append(long, 2+12, 4, 8)
	}
	renderScript(t, long)
}

func FuzzRenderIncremental(f *testing.F) {
	f.Add([]byte{0, 2 + 12, 4, 8, 2 + 24, 4, 4, 6, 2, 7, 0, 2, 4, 9 + 36, 2 + 12, 4, 8})
	f.Add([]byte{1, 2, 6, 7, 8, 10, 1, 2 + 12, 4, 10, 0, 2, 9, 4, 11, 2 + 12, 5})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		renderScript(t, ops)
	})
}

// TestUnloadableImageTriedOncePerLoader: an image the store cannot load is
// tried once per loader. The turn's later requests keep the messages up to
// the last assistant one, the note in place of the image among them,
// instead of rendering them all again, and read nothing from the store; a
// new loader (a later turn's) tries again.
func TestUnloadableImageTriedOncePerLoader(t *testing.T) {
	c := NewConversation()
	reads := 0
	c.SetImageLoader(func(context.Context, string) ([]byte, error) {
		reads++
		return nil, errors.New("no such image")
	})
	var seq int64
	apply := func(p event.Payload) {
		seq++
		c.Apply(event.Event{Seq: seq, Data: p})
	}
	ref := event.ImageRef{MimeType: "image/png", SHA256: "abc", Size: 3}
	apply(event.UserMessage{Text: "look", Attachments: []event.Attachment{{Path: "a.png", Image: &ref}}})
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "system"}}
	var mark RenderMark
	for step := range 5 {
		var same int
		msgs, mark, same = c.Render(msgs, 1, FormatNative, mark)
		if !strings.Contains(msgs[1].Content, "could not be loaded") || len(msgs[1].Images) != 0 {
			t.Fatalf("step %d: the prompt's message is %+v, want the note without the image", step, msgs[1])
		}
		// Each step's request keeps all the last one rendered up to its
		// last assistant message: the prompt and each step's call.
		if want := 2 * max(step-1, 0); step > 1 && same != want {
			t.Errorf("step %d: %d messages kept, want %d (the rendering was not final)", step, same, want)
		}
		id := fmt.Sprintf("call_%d", step)
		apply(event.AssistantMessage{Content: "reading", ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: []byte(`{}`)}}})
		apply(event.ToolResult{ToolCallID: id, ToolName: "read_file", Content: "text"})
	}
	if reads != 1 {
		t.Errorf("the unloadable image was read %d times in one turn's 5 requests, want 1", reads)
	}
	reads = 0
	c.SetImageLoader(func(context.Context, string) ([]byte, error) {
		reads++
		return []byte("PNG"), nil
	})
	msgs, _, _ = c.Render(msgs, 1, FormatNative, mark)
	if len(msgs[1].Images) != 1 || reads != 1 {
		t.Fatalf("after a new loader: %d images, %d reads; want the image, read once", len(msgs[1].Images), reads)
	}
}
