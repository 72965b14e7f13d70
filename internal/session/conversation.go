package session

import (
	"slices"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// Format is how the conversation presents tool calls to the model.
type Format int

const (
	// FormatNative is for models with native tool calling: assistant
	// messages carry structured tool calls, results are role tool messages
	// with the tool's name and call id.
	FormatNative Format = iota
	// FormatText is for models without it: calls appear as a "[Called:]"
	// line in the assistant's content, and results travel inside the next
	// <agent_control> packet.
	FormatText
)

// String names the format.
func (f Format) String() string {
	if f == FormatText {
		return "text"
	}
	return "native"
}

// ReasoningCompleted is the assistant content in history for a turn in
// which the model only reasoned: a blank assistant turn makes models forget
// what they did and start over (seed pitfall #35).
const ReasoningCompleted = "[Reasoning completed]"

type entryKind uint8

const (
	entryUser entryKind = iota
	entryAssistant
	entryResult
	entryControl
	entrySummary
)

// entry is one conversation event, kept in the form it renders from.
type entry struct {
	seq  int64
	kind entryKind
	// text is the user content, assistant content, result content, control
	// content or compaction summary.
	text string
	// control is the control message kind.
	control string
	// images are a user message's images (bytes loaded on first use).
	images []event.ImageRef
	// toolName and callID identify a result.
	toolName, callID string
	// calls are an assistant message's tool calls; own is the text the
	// model itself wrote with them ("" when it wrote none), which is all a
	// native message with calls carries (see renderer.assistant).
	calls []llm.ToolCall
	own   string
}

// Conversation is the model's view of a session, built by applying the
// session's durable events in order. It is safe for concurrent use.
type Conversation struct {
	mu      sync.Mutex
	entries []entry
	lastSeq int64 // the highest seq applied
	// loader reads the bytes of images the log refers to (images.go);
	// unloadable are the images (by SHA-256) it failed to load.
	loader     ImageLoader
	unloadable map[string]bool
	// lastAssistant is 1 + the index of the last assistant entry (0:
	// none); gen counts the changes other than appends (a compaction, a
	// new image loader), after which rc, the final part of the rendering
	// per format (render_cache.go), starts over.
	lastAssistant int
	gen           uint64
	rc            [2]renderCache
}

// NewConversation returns an empty conversation.
func NewConversation() *Conversation { return &Conversation{} }

// BuildConversation applies events in order.
func BuildConversation(events []event.Event) *Conversation {
	c := NewConversation()
	for _, ev := range events {
		c.Apply(ev)
	}
	return c
}

// Apply adds ev to the conversation if it is a conversation event
// (user_message, assistant_message, tool_result, control_message,
// compaction); other events are ignored.
func (c *Conversation) Apply(ev event.Event) {
	var e entry
	switch p := ev.Data.(type) {
	case event.UserMessage:
		e = entry{kind: entryUser, text: p.Content, images: userImages(p)}
		if e.text == "" {
			e.text = p.Text
		}
	case event.AssistantMessage:
		e = entry{kind: entryAssistant, text: historyContent(p), calls: p.ToolCalls, own: ownText(p)}
	case event.ToolResult:
		e = entry{kind: entryResult, text: p.Content, toolName: p.ToolName, callID: p.ToolCallID}
	case event.ControlMessage:
		e = entry{kind: entryControl, text: p.Content, control: p.Kind}
	case event.Compaction:
		c.compact(ev, p)
		return
	default:
		return
	}
	c.mu.Lock()
	e.seq = c.seqOf(ev)
	c.entries = append(c.entries, e)
	if e.kind == entryAssistant {
		c.lastAssistant = len(c.entries)
	}
	c.mu.Unlock()
}

// seqOf returns the event's seq, or — for an event that was never stored
// (a detached turn: sub-agents, tests) — the next one after the last seen,
// so that compaction, which cuts by seq, works on in-memory conversations
// too. Called with c.mu held.
func (c *Conversation) seqOf(ev event.Event) int64 {
	seq := ev.Seq
	if seq == 0 {
		seq = c.lastSeq + 1
	}
	c.lastSeq = max(c.lastSeq, seq)
	return seq
}

// historyContent is an assistant message's content in history: what the
// agent recorded, or — for events that carry none — the displayed text, the
// tool-call summary, or the reasoning marker. Never thinking (pitfall #12).
func historyContent(p event.AssistantMessage) string {
	switch {
	case p.Content != "":
		return p.Content
	case p.Text != "":
		return p.Text
	case len(p.ToolCalls) > 0:
		return ToolCallSummary(p.ToolCalls)
	}
	return ReasoningCompleted
}

// ownText is the text the model wrote in a response that called tools: the
// displayed text, or — for events that carry only a history content — that
// content unless it is the agent's summary of the calls.
func ownText(p event.AssistantMessage) string {
	if len(p.ToolCalls) == 0 || p.Text != "" {
		return p.Text
	}
	if p.Content == ToolCallSummary(p.ToolCalls) {
		return ""
	}
	return p.Content
}

// compact replaces the entries before firstKept with the summary. An
// earlier summary is dropped: the new one covers it.
func (c *Conversation) compact(ev event.Event, p event.Compaction) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := []entry{{seq: c.seqOf(ev), kind: entrySummary, text: p.Summary}}
	for _, e := range c.entries {
		if e.kind != entrySummary && e.seq >= p.FirstKeptSeq {
			kept = append(kept, e)
		}
	}
	c.entries = kept
	c.gen++
	c.lastAssistant = 0
	for i := range kept {
		if kept[i].kind == entryAssistant {
			c.lastAssistant = i + 1
		}
	}
}

// Len returns the number of conversation entries.
func (c *Conversation) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Messages renders the conversation for the model in format f. The system
// prompt is not part of it.
func (c *Conversation) Messages(f Format) []llm.Message {
	return c.AppendMessages(nil, f)
}

// AppendMessages is Messages appended to dst (a request's system message):
// the request is built in one slice, sized once, instead of a copy of the
// rendered history per iteration. The messages up to the last assistant
// message are copied from what the last call rendered (render_cache.go).
func (c *Conversation) AppendMessages(dst []llm.Message, f Format) []llm.Message {
	out, _, _ := c.Render(dst, len(dst), f, RenderMark{})
	if out == nil {
		out = []llm.Message{} // as before: an empty conversation is no messages, not nil
	}
	return out
}

// render turns entries into messages appended to dst (nil: a new slice);
// with track, the renderer also records which entry each message starts
// with (then dst must be nil: from indexes out).
func render(entries []entry, f Format, track bool, images func(*entry) ([][]byte, string), dst []llm.Message) *renderer {
	r := &renderer{format: f, out: slices.Grow(dst, len(entries)+2), track: track, pendFrom: -1, lastAssistant: -1, images: images}
	for i := range entries {
		if entries[i].kind == entryAssistant {
			r.lastAssistant = i
		}
	}
	for i := range entries {
		r.add(i, &entries[i])
	}
	r.flush()
	return r
}
