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
	seenChoices := false
	return s.Document(data, func(key []byte) (ok bool) {
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
			ok = s.SkipOther(key, chunkKeys...)
		}
		return ok
	})
}

func fastChoices(s *wire.Scanner, c *chunk) bool {
	if s.Null() {
		c.Choices = nil
		return true
	}
	// Reuse the slice of the previous event (the stream passes the same
	// chunk each time); encoding/json makes [] a non-nil empty slice.
	c.Choices = c.Choices[:0]
	if c.Choices == nil {
		c.Choices = make([]choice, 0, 1)
	}
	return s.Array(func() bool {
		c.Choices = append(c.Choices, choice{})
		return fastChoice(s, &c.Choices[len(c.Choices)-1])
	})
}

func fastChoice(s *wire.Scanner, ch *choice) bool {
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "index":
			ok = s.IntTo(&ch.Index)
		case "delta":
			ok = fastDelta(s, &ch.Delta)
		case "text":
			ok = optString(s, &ch.Text)
		case "finish_reason":
			if s.Null() {
				ch.FinishReason = nil
				return true
			}
			var r string
			r, ok = s.String()
			ch.FinishReason = &r
		default:
			ok = s.SkipOther(key, choiceKeys...)
		}
		return ok
	})
}

func fastDelta(s *wire.Scanner, d *delta) bool {
	seenCalls := false
	return s.Object(func(key []byte) (ok bool) {
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
			ok = s.SkipOther(key, deltaKeys...)
		}
		return ok
	})
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
// stream copies them when it appends them to the call. (Ollama's whole
// calls with object arguments are read by its own decoder.)
func fastToolCalls(s *wire.Scanner, d *delta) bool {
	calls := make([]toolCallDelta, 0, 1)
	if !s.Array(func() bool {
		calls = append(calls, toolCallDelta{})
		return fastToolCallDelta(s, &calls[len(calls)-1])
	}) {
		return false
	}
	d.ToolCalls = calls
	return true
}

func fastToolCallDelta(s *wire.Scanner, tc *toolCallDelta) bool {
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "index":
			if s.Null() {
				tc.Index = optInt{}
				return true
			}
			ok = s.IntTo(&tc.Index.N)
			tc.Index.Set = true
		case "id":
			ok = optString(s, &tc.ID)
		case "function":
			ok = fastCallFunction(s, tc)
		default:
			ok = s.SkipOther(key, "index", "id", "function")
		}
		return ok
	})
}

func fastCallFunction(s *wire.Scanner, tc *toolCallDelta) bool {
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "name":
			ok = optString(s, &tc.Function.Name)
		case "arguments":
			tc.Function.Arguments, ok = s.Raw()
		default:
			ok = s.SkipOther(key, "name", "arguments")
		}
		return ok
	})
}

func fastUsage(s *wire.Scanner, c *chunk) bool {
	if s.Null() {
		c.Usage = nil
		return true
	}
	if c.Usage == nil {
		c.Usage = &usage{}
	}
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "prompt_tokens":
			ok = s.IntTo(&c.Usage.PromptTokens)
		case "completion_tokens":
			ok = s.IntTo(&c.Usage.CompletionTokens)
		default:
			ok = s.SkipOther(key, usageKeys...)
		}
		return ok
	})
}
