package openai

import (
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// The fast path decodes chat.completion.chunk and text_completion events
// with wire.Scanner; most of their bytes are the id, model name and
// fingerprint every token event repeats. Anything unusual (an error
// object, llama.cpp timings, a repeated key, a key that differs from a
// known one only in case) returns false and the event is decoded with
// encoding/json, so the result is always what encoding/json gives —
// FuzzFastChunk checks that.

var (
	chunkKeys  = []string{"choices", "usage", "timings", "error", "object", "message"}
	choiceKeys = []string{"index", "delta", "text", "finish_reason"}
	deltaKeys  = []string{"content", "reasoning_content", "reasoning", "tool_calls"}
	usageKeys  = []string{"prompt_tokens", "completion_tokens"}
)

func fastChunk(data []byte, c *chunk) bool {
	var s wire.Scanner
	s.Reset(data)
	if !s.Begin('{') {
		return false
	}
	seenChoices := false
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return s.End()
		}
		switch string(key) {
		case "choices":
			ok = !seenChoices && fastChoices(&s, c)
			seenChoices = true
		case "usage":
			ok = fastUsage(&s, c)
		case "object":
			c.Object, ok = s.String()
		case "message":
			c.Message, ok = s.String()
		default:
			ok = !wire.FoldsTo(key, chunkKeys...) && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

func fastChoices(s *wire.Scanner, c *chunk) bool {
	if s.Null() {
		c.Choices = nil
		return true
	}
	if !s.Begin('[') {
		return false
	}
	// Reuse the slice of the previous event (the stream passes the same
	// chunk each time); encoding/json makes [] a non-nil empty slice.
	c.Choices = c.Choices[:0]
	if c.Choices == nil {
		c.Choices = make([]choice, 0, 1)
	}
	for first := true; ; first = false {
		done, ok := s.NextElem(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		c.Choices = append(c.Choices, choice{})
		if !fastChoice(s, &c.Choices[len(c.Choices)-1]) {
			return false
		}
	}
}

func fastChoice(s *wire.Scanner, ch *choice) bool {
	if !s.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		switch string(key) {
		case "index":
			var n int64
			n, ok = s.Int()
			ch.Index = int(n)
		case "delta":
			ok = fastDelta(s, &ch.Delta)
		case "text":
			ok = optString(s, &ch.Text)
		case "finish_reason":
			if s.Null() {
				ch.FinishReason = nil
				break
			}
			var r string
			r, ok = s.String()
			ch.FinishReason = &r
		default:
			ok = !wire.FoldsTo(key, choiceKeys...) && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

func fastDelta(s *wire.Scanner, d *delta) bool {
	if !s.Begin('{') {
		return false
	}
	seenCalls := false
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		switch string(key) {
		case "content":
			ok = optString(s, &d.Content)
		case "reasoning_content":
			ok = optString(s, &d.ReasoningContent)
		case "reasoning":
			ok = optString(s, &d.Reasoning)
		case "tool_calls":
			ok = !seenCalls && fastToolCalls(s, d)
			seenCalls = true
		default:
			ok = !wire.FoldsTo(key, deltaKeys...) && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

// optString reads a string, or null, which leaves *dst as it is (as
// encoding/json does).
func optString(s *wire.Scanner, dst *string) bool {
	if s.Null() {
		return true
	}
	v, ok := s.String()
	if ok {
		*dst = v
	}
	return ok
}

// fastToolCalls reads the tool-call pieces. A file written through a
// tool call arrives as thousands of argument fragments, so these are as
// hot as content deltas. The arguments keep their JSON form (a string with
// its quotes) and alias data, which stays valid until the next event; the
// stream copies them when it appends them to the call.
func fastToolCalls(s *wire.Scanner, d *delta) bool {
	if !s.Begin('[') {
		return false
	}
	calls := make([]toolCallDelta, 0, 1)
	for first := true; ; first = false {
		done, ok := s.NextElem(first)
		switch {
		case !ok:
			return false
		case done:
			d.ToolCalls = calls
			return true
		}
		calls = append(calls, toolCallDelta{})
		if !fastToolCallDelta(s, &calls[len(calls)-1]) {
			return false
		}
	}
}

func fastToolCallDelta(s *wire.Scanner, tc *toolCallDelta) bool {
	if !s.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		switch string(key) {
		case "index":
			if s.Null() {
				tc.Index = optInt{}
				break
			}
			var n int64
			n, ok = s.Int()
			tc.Index = optInt{N: int(n), Set: true}
		case "id":
			ok = optString(s, &tc.ID)
		case "function":
			ok = fastCallFunction(s, tc)
		default:
			ok = !wire.FoldsTo(key, "index", "id", "function") && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

func fastCallFunction(s *wire.Scanner, tc *toolCallDelta) bool {
	if !s.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		switch string(key) {
		case "name":
			ok = optString(s, &tc.Function.Name)
		case "arguments":
			tc.Function.Arguments, ok = s.Raw()
		default:
			ok = !wire.FoldsTo(key, "name", "arguments") && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

func fastUsage(s *wire.Scanner, c *chunk) bool {
	if s.Null() {
		c.Usage = nil
		return true
	}
	if !s.Begin('{') {
		return false
	}
	if c.Usage == nil {
		c.Usage = &usage{}
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		var n int64
		switch string(key) {
		case "prompt_tokens":
			n, ok = s.Int()
			c.Usage.PromptTokens = int(n)
		case "completion_tokens":
			n, ok = s.Int()
			c.Usage.CompletionTokens = int(n)
		default:
			ok = !wire.FoldsTo(key, usageKeys...) && s.Skip()
		}
		if !ok {
			return false
		}
	}
}
