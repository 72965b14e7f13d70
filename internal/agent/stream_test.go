package agent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// collector records emitted events; safe for the pump's goroutine.
type collector struct {
	mu  sync.Mutex
	evs []event.Payload
}

func (c *collector) emit(_ context.Context, p event.Payload) error {
	c.mu.Lock()
	c.evs = append(c.evs, p)
	c.mu.Unlock()
	return nil
}

func (c *collector) all() []event.Payload {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]event.Payload(nil), c.evs...)
}

func (c *collector) texts() []string {
	var out []string
	for _, p := range c.all() {
		if d, ok := p.(event.TextDelta); ok {
			out = append(out, d.Text)
		}
	}
	return out
}

func TestFirstChunkGate(t *testing.T) {
	c := &collector{}
	p := newPump(context.Background(), c.emit, 1)
	steps := []struct {
		add  string
		want []string
	}{
		{"**What", nil},                                    // 4 word characters: the spinner stays
		{" is it", []string{"**What is it"}},               // 8: shown
		{"**", []string{"**What is it"}},                   // punctuation alone waits
		{" ok", []string{"**What is it", "** ok"}},         // after the first, one word character
		{" ", []string{"**What is it", "** ok"}},           // spaces wait
		{"ünï", []string{"**What is it", "** ok", " ünï"}}, // letters of any script count
	}
	for i, s := range steps {
		p.addText(s.add)
		p.mu.Lock()
		p.flushLocked(false) // a tick
		p.mu.Unlock()
		if diff := cmp.Diff(s.want, c.texts()); diff != "" {
			t.Fatalf("step %d (%q) (-want +got):\n%s", i, s.add, diff)
		}
	}
}

// Text that arrived just before the server stalls is shown on the next
// tick, not when the stall ends.
func TestTickerFlushesStalledText(t *testing.T) {
	c := &collector{}
	clock := newManualClock()
	p := newPump(context.Background(), c.emit, 1)
	p.start(clock)
	p.addText("Let me write main.go now")
	clock.tick()
	clock.tick() // the second tick is taken only after the first was handled
	p.halt()
	if diff := cmp.Diff([]string{"Let me write main.go now"}, c.texts()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func runStream(t *testing.T, prov *memProvider, clock Clock, known map[string]bool) (*streamResult, *collector) {
	t.Helper()
	c := &collector{}
	s := &streamer{provider: prov, clock: clock, emit: c.emit, iter: 1, known: known}
	return s.run(context.Background(), &llm.ChatRequest{Model: "m"}), c
}

func TestStreamStripsSignalAndMarkup(t *testing.T) {
	known := map[string]bool{"read_file": true}
	tests := []struct {
		name      string
		text      string
		display   string
		complete  bool
		textCalls int
	}{
		{"signal", "All done. [TASK_COMPLETE]", "All done. ", true, 0},
		{"signal in lower case", "Done [task_complete] now", "Done  now", true, 0},
		{"partial signal at the end", "Almost [TASK_COMP", "Almost ", false, 0},
		{"lone bracket at the end", "Look [", "Look ", false, 0},
		{"xml call", `Reading. <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call> ok`, "Reading.  ok", false, 1},
		{"bare call of a known tool", `{"name": "read_file", "arguments": {"path": "a"}}`, "", false, 1},
		{"json that is not a call", `{"name": "other"}`, `{"name": "other"}`, false, 0},
		{"signal inside a call does not count", `<tool_call>{"name": "write_file", "arguments": {"content": "[TASK_COMPLETE]"}}</tool_call>`, "", false, 1},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 1000} {
			res, c := runStream(t, &memProvider{replies: [][]llm.ChatChunk{textChunks(tt.text, size)}}, &noTicks{*newManualClock()}, known)
			if res.display != tt.display || res.complete != tt.complete || len(res.textCalls) != tt.textCalls {
				t.Errorf("%s, %d-byte chunks: display %q complete %v calls %d; want %q %v %d",
					tt.name, size, res.display, res.complete, len(res.textCalls), tt.display, tt.complete, tt.textCalls)
			}
			if got := strings.Join(c.texts(), ""); got != res.display {
				t.Errorf("%s: deltas %q do not add up to the display %q", tt.name, got, res.display)
			}
		}
	}
}

// Reasoning ends when the calls arrive, however long the server buffered
// them: the block is emitted then, with the reasoning's own duration.
func TestEarlyThinkingCollapse(t *testing.T) {
	clock := &noTicks{*newManualClock()}
	chunks := []llm.ChatChunk{
		{Thinking: "I need "},
		{Thinking: "to write a.go"},
		{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: []byte(`{"path":"src/a.go","content":"x"}`)}}},
		{Done: true, DoneReason: llm.DoneStop, Metrics: &llm.Metrics{PromptTokens: 10, CompletionTokens: 5}},
	}
	gaps := []time.Duration{0, 2 * time.Second, 60 * time.Second, 0}
	prov := &memProvider{replies: [][]llm.ChatChunk{chunks}, onRecv: func(i int) { clock.advance(gaps[i]) }}
	res, c := runStream(t, prov, clock, nil)
	var kinds []string
	for _, p := range c.all() {
		kinds = append(kinds, string(p.EventType()))
		if b, ok := p.(event.ThinkingBlock); ok && (b.DurationMs != 2000 || b.Content != "I need to write a.go") {
			t.Errorf("thinking block = %+v, want 2000 ms", b)
		}
		if s, ok := p.(event.Status); ok && s.Text != "Writing a.go…" {
			t.Errorf("status = %q", s.Text)
		}
	}
	want := []string{"thinking_delta", "thinking_block", "status"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if len(res.nativeCalls) != 1 || res.promptTokens != 10 || res.completionTokens != 5 || res.truncated {
		t.Errorf("result = %+v", res)
	}
}

func TestStreamTruncatedAndFailed(t *testing.T) {
	res, _ := runStream(t, &memProvider{replies: [][]llm.ChatChunk{{{Content: "abc"}, {Done: true, DoneReason: llm.DoneLength}}}}, &noTicks{*newManualClock()}, nil)
	if !res.truncated || res.display != "abc" {
		t.Errorf("truncated result = %+v", res)
	}
	res, c := runStream(t, &memProvider{replies: [][]llm.ChatChunk{{{Content: "Partial answer <tool_c"}, {DoneReason: "error:boom"}}}}, &noTicks{*newManualClock()}, nil)
	if res.err == nil || res.canceled || res.display != "Partial answer " {
		t.Errorf("failed result = %+v (err %v)", res, res.err)
	}
	if got := strings.Join(c.texts(), ""); got != "Partial answer " {
		t.Errorf("deltas = %q: what was decided must be shown, held markup not", got)
	}
}
