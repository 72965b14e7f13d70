package ollama

import (
	"encoding/json"

	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// The fast path decodes the chunk shapes Ollama sends with wire.Scanner;
// encoding/json spends most of its time on the model name and timestamp
// every token line repeats. Anything unusual makes these functions return
// false and the caller decodes the line with encoding/json, so the result
// (and any error) is always what encoding/json gives — FuzzFastChat checks
// that.

var (
	chatKeys     = []string{"message", "done", "done_reason", "error"}
	generateKeys = []string{"response", "thinking", "done", "done_reason", "error"}
	messageKeys  = []string{"content", "thinking", "tool_calls"}
	metricKeys   = []string{"total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration"}
)

func fastChat(line []byte, c *chatChunk) bool {
	var s wire.Scanner
	s.Reset(line)
	if !s.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return s.End()
		}
		switch string(key) {
		case "message":
			ok = fastMessage(&s, c)
		case "done":
			c.Done, ok = s.Bool()
		case "done_reason":
			c.DoneReason, ok = s.String()
		default:
			ok = otherMember(&s, key, &c.metrics, chatKeys)
		}
		if !ok {
			return false
		}
	}
}

func fastGenerate(line []byte, c *generateChunk) bool {
	var s wire.Scanner
	s.Reset(line)
	if !s.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return s.End()
		}
		switch string(key) {
		case "response":
			c.Response, ok = s.String()
		case "thinking":
			c.Thinking, ok = s.String()
		case "done":
			c.Done, ok = s.Bool()
		case "done_reason":
			c.DoneReason, ok = s.String()
		default:
			ok = otherMember(&s, key, &c.metrics, generateKeys)
		}
		if !ok {
			return false
		}
	}
}

func fastMessage(s *wire.Scanner, c *chatChunk) bool {
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
			c.Message.Content, ok = s.String()
		case "thinking":
			c.Message.Thinking, ok = s.String()
		case "tool_calls":
			ok = fastToolCalls(s, c, &seenCalls)
		default:
			ok = !wire.FoldsTo(key, messageKeys...) && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

// otherMember reads a metric or skips a member olly does not use. A key
// that matches a known field only when case is ignored is handed over.
func otherMember(s *wire.Scanner, key []byte, m *metrics, known []string) bool {
	var dst *int64
	var count *int
	switch string(key) {
	case "total_duration":
		dst = &m.TotalDuration
	case "load_duration":
		dst = &m.LoadDuration
	case "prompt_eval_duration":
		dst = &m.PromptEvalDuration
	case "eval_duration":
		dst = &m.EvalDuration
	case "prompt_eval_count":
		count = &m.PromptEvalCount
	case "eval_count":
		count = &m.EvalCount
	default:
		return !wire.FoldsTo(key, known...) && !wire.FoldsTo(key, metricKeys...) && s.Skip()
	}
	n, ok := s.Int()
	if dst != nil {
		*dst = n
	} else {
		*count = int(n)
	}
	return ok
}

// fastToolCalls reads the tool-call array with the scanner too: a call
// that writes a file is tens of MB, and encoding/json would pass over it
// three times. A second tool_calls key is left to encoding/json, which
// merges it into the first.
func fastToolCalls(s *wire.Scanner, c *chatChunk, seen *bool) bool {
	if *seen || !s.Begin('[') {
		return false
	}
	*seen = true
	calls := []toolCall{}
	for first := true; ; first = false {
		done, ok := s.NextElem(first)
		switch {
		case !ok:
			return false
		case done:
			c.Message.ToolCalls = calls
			return true
		}
		var tc toolCall
		if !fastToolCall(s, &tc) {
			return false
		}
		calls = append(calls, tc)
	}
}

func fastToolCall(s *wire.Scanner, tc *toolCall) bool {
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
		case "id":
			tc.ID, ok = s.String()
		case "function":
			ok = fastFunction(s, &tc.Function)
		default:
			ok = !wire.FoldsTo(key, "id", "function") && s.Skip()
		}
		if !ok {
			return false
		}
	}
}

func fastFunction(s *wire.Scanner, f *toolFunction) bool {
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
			f.Index = int(n)
		case "name":
			f.Name, ok = s.String()
		case "arguments":
			var raw []byte
			raw, ok = s.Raw()
			f.Arguments = append(json.RawMessage(nil), raw...)
		default:
			ok = !wire.FoldsTo(key, "index", "name", "arguments") && s.Skip()
		}
		if !ok {
			return false
		}
	}
}
