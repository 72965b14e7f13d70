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
	return s.Document(line, func(key []byte) bool {
		if string(key) == "message" {
			return fastMessage(&s, c)
		}
		return c.member(&s, key, chatKeys)
	})
}

func fastGenerate(line []byte, c *generateChunk) bool {
	var s wire.Scanner
	return s.Document(line, func(key []byte) (ok bool) {
		switch string(key) {
		case "response":
			c.Response, ok = s.String()
		case "thinking":
			c.Thinking, ok = s.String()
		default:
			ok = c.member(&s, key, generateKeys)
		}
		return ok
	})
}

func fastMessage(s *wire.Scanner, c *chatChunk) bool {
	seenCalls := false
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "content":
			c.Message.Content, ok = s.String()
		case "thinking":
			c.Message.Thinking, ok = s.String()
		case "tool_calls":
			// A second tool_calls key is left to encoding/json, which
			// merges it into the first.
			ok = !seenCalls && fastToolCalls(s, c)
			seenCalls = true
		default:
			ok = s.SkipOther(key, messageKeys...)
		}
		return ok
	})
}

// member reads a status member or skips one olly does not use. A key
// that matches a known field only when case is ignored is handed over.
func (st *status) member(s *wire.Scanner, key []byte, known []string) (ok bool) {
	switch string(key) {
	case "done":
		st.Done, ok = s.Bool()
	case "done_reason":
		st.DoneReason, ok = s.String()
	case "total_duration":
		st.TotalDuration, ok = s.Int()
	case "load_duration":
		st.LoadDuration, ok = s.Int()
	case "prompt_eval_duration":
		st.PromptEvalDuration, ok = s.Int()
	case "eval_duration":
		st.EvalDuration, ok = s.Int()
	case "prompt_eval_count":
		ok = s.IntTo(&st.PromptEvalCount)
	case "eval_count":
		ok = s.IntTo(&st.EvalCount)
	default:
		ok = !wire.FoldsTo(key, known...) && s.SkipOther(key, metricKeys...)
	}
	return ok
}

// fastToolCalls reads the tool-call array with the scanner too: a call
// that writes a file is tens of MB, and encoding/json would pass over it
// three times. Ollama sends each call whole, its arguments an object; the
// OpenAI dialect's fragments of argument text are read differently.
func fastToolCalls(s *wire.Scanner, c *chatChunk) bool {
	calls := []toolCall{}
	if !s.Array(func() bool {
		calls = append(calls, toolCall{})
		return fastToolCall(s, &calls[len(calls)-1])
	}) {
		return false
	}
	c.Message.ToolCalls = calls
	return true
}

func fastToolCall(s *wire.Scanner, tc *toolCall) bool {
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "id":
			tc.ID, ok = s.String()
		case "function":
			ok = fastFunction(s, &tc.Function)
		default:
			ok = s.SkipOther(key, "id", "function")
		}
		return ok
	})
}

func fastFunction(s *wire.Scanner, f *toolFunction) bool {
	return s.Object(func(key []byte) (ok bool) {
		switch string(key) {
		case "index":
			ok = s.IntTo(&f.Index)
		case "name":
			f.Name, ok = s.String()
		case "arguments":
			var raw []byte
			raw, ok = s.Raw()
			f.Arguments = append(json.RawMessage(nil), raw...)
		default:
			ok = s.SkipOther(key, "index", "name", "arguments")
		}
		return ok
	})
}
