package agent

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/toolcall"
)

// randomChunks splits s into chunks of 1 to 16 bytes (cutting UTF-8
// sequences too: servers do) chosen by seed.
func randomChunks(s string, seed uint64, thinking bool) []llm.ChatChunk {
	rng := rand.New(rand.NewPCG(seed, seed>>7))
	var out []llm.ChatChunk
	for len(s) > 0 {
		n := min(len(s), 1+rng.IntN(16))
		if thinking {
			out = append(out, llm.ChatChunk{Thinking: s[:n]})
		} else {
			out = append(out, llm.ChatChunk{Content: s[:n]})
		}
		s = s[n:]
	}
	return out
}

// leaks reports call markup (tags are case-sensitive: "<Tool_Call>" is
// prose) or the signal (any case) in displayed text.
func leaks(s string) string {
	for _, m := range []string{"<tool_call>", "</tool_call>", "[TOOL_CALLS]"} {
		if strings.Contains(s, m) {
			return m
		}
	}
	if strings.Contains(strings.ToLower(s), "[task_complete]") {
		return "[TASK_COMPLETE]"
	}
	return ""
}

// FuzzStreamProcessor feeds random chunkings of text with markup through
// the stream processor: it never panics, the deltas add up to the display,
// the display is toolcall.Strip of the whole text, and neither shows
// call markup or [TASK_COMPLETE].
func FuzzStreamProcessor(f *testing.F) {
	seeds := []string{
		"Done. [TASK_COMPLETE]",
		`I'll read it. <tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call> then [TASK_COMPLETE]`,
		`[TOOL_CALLS]read_file[ARGS]{"path": "x"} and [TASK[TASK_COMPLETE]_COMPLETE]`,
		"```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"q\"}}\n```\nok",
		`<tool<tool_call>{"name":"read_file","arguments":{}}</tool_call>_call> [task_compl`,
		"plain prose with { braces } and [brackets] and <tags>",
		`{"name": "write_file", "arguments": {"path": "a", "content": "<tool_call>[TASK_COMPLETE]"}}`,
	}
	for i, s := range seeds {
		f.Add(s, uint64(i), "Thinking [TASK_COMPLETE] done [TAS")
	}
	known := map[string]bool{"read_file": true, "write_file": true}
	f.Fuzz(func(t *testing.T, text string, seed uint64, thinking string) {
		chunks := append(randomChunks(thinking, seed+1, true), randomChunks(text, seed, false)...)
		chunks = append(chunks, llm.ChatChunk{Done: true, DoneReason: llm.DoneStop})
		c := &collector{}
		s := &streamer{provider: &memProvider{replies: [][]llm.ChatChunk{chunks}}, clock: &noTicks{*newManualClock()}, emit: c.emit, iter: 1, known: known}
		res := s.run(t.Context(), &llm.ChatRequest{})
		if res.err != nil {
			t.Fatalf("stream failed: %v", res.err)
		}
		var deltas, thoughts strings.Builder
		for _, p := range c.all() {
			switch p := p.(type) {
			case event.TextDelta:
				deltas.WriteString(p.Text)
			case event.ThinkingDelta:
				thoughts.WriteString(p.Text)
			case event.ThinkingBlock:
				if m := leaks(p.Content); m != "" {
					t.Fatalf("thinking block shows %s: %q", m, p.Content)
				}
			}
		}
		if deltas.String() != res.display {
			t.Fatalf("deltas %q != display %q", deltas.String(), res.display)
		}
		if want := toolcall.Strip(text, toolcall.Options{Known: known}); res.display != want {
			t.Fatalf("display %q != Strip %q", res.display, want)
		}
		if m := leaks(res.display); m != "" {
			t.Fatalf("display shows %s: %q", m, res.display)
		}
		if want := toolcall.StripTaskComplete(thinking); thoughts.String() != want || res.thinking != want {
			t.Fatalf("thinking shown %q (result %q), want %q", thoughts.String(), res.thinking, want)
		}
		if strings.Contains(strings.ToLower(res.thinking), "[task_complete]") {
			t.Fatalf("thinking shows the signal: %q", res.thinking)
		}
		if res.thinkComplete != toolcall.HasTaskComplete(thinking) {
			t.Fatalf("thinkComplete = %v for %q", res.thinkComplete, thinking)
		}
	})
}

// FuzzTaskStripper checks the thinking stripper against
// toolcall.StripTaskComplete for any split.
func FuzzTaskStripper(f *testing.F) {
	for _, s := range []string{"[TASK_COMPLETE]", "a[TASK[TASK_COMPLETE]_COMPLETE]b", "x [task_", "[[[T", "[TASK_COMPLETE"} {
		f.Add(s, uint64(3))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		var st taskStripper
		var out strings.Builder
		for _, c := range randomChunks(text, seed, false) {
			out.WriteString(st.Write(c.Content))
		}
		out.WriteString(st.Flush())
		if want := toolcall.StripTaskComplete(text); out.String() != want {
			t.Fatalf("stripped %q, want %q", out.String(), want)
		}
	})
}
