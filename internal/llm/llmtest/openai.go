package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// The OpenAI wire shapes: chat.completion.chunk and text_completion
// objects sent as server-sent events, then "data: [DONE]".

type oaChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           any             `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type oaChatChoice struct {
	Index        int       `json:"index"`
	Delta        any       `json:"delta,omitempty"` // any, so that an empty delta is still sent as {}
	Message      any       `json:"message,omitempty"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type oaTextChoice struct {
	Text         string    `json:"text"`
	Index        int       `json:"index"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// openaiEmitter frames a reply for /v1/chat/completions (chat) or
// /v1/completions, streamed or whole.
type openaiEmitter struct {
	s       *Server
	w       http.ResponseWriter
	req     *Request
	chat    bool
	id      string
	created int64
	sw      *streamWriter

	// the whole reply, for "stream": false
	content   strings.Builder
	reasoning strings.Builder
	calls     []map[string]any
	answered  bool
}

func (s *Server) newOpenAIChat(w http.ResponseWriter, req *Request, seq int) emitter {
	return &openaiEmitter{s: s, w: w, req: req, chat: true, id: fmt.Sprintf("chatcmpl-%d", seq), created: time.Now().Unix()}
}

func (s *Server) newOpenAICompletion(w http.ResponseWriter, req *Request, seq int) emitter {
	return &openaiEmitter{s: s, w: w, req: req, id: fmt.Sprintf("cmpl-%d", seq), created: time.Now().Unix()}
}

// reasoningField is the delta field of reasoning text for the flavor.
func (s *Server) reasoningField() string {
	if s.flavor == FlavorOllama {
		return "reasoning"
	}
	return "reasoning_content"
}

func (o *openaiEmitter) object() string {
	switch {
	case o.chat && o.req.Stream:
		return "chat.completion.chunk"
	case o.chat:
		return "chat.completion"
	}
	return "text_completion"
}

func (o *openaiEmitter) envelope(choices any) oaChunk {
	c := oaChunk{ID: o.id, Object: o.object(), Created: o.created, Model: o.req.Model, SystemFingerprint: "fp_llmtest", Choices: choices}
	if o.req.IncludeUsage {
		c.Usage = json.RawMessage("null") // OpenAI sends usage: null on every chunk but the last
	}
	return c
}

// delta sends one chunk with a chat delta or completion text.
func (o *openaiEmitter) delta(d map[string]any, text string) {
	if o.chat {
		o.sw.eventJSON(o.envelope([]oaChatChoice{{Delta: d}}))
		return
	}
	o.sw.eventJSON(o.envelope([]oaTextChoice{{Text: text}}))
}

func (o *openaiEmitter) start() {
	if !o.req.Stream {
		return
	}
	o.sw = newStreamWriter(o.w, "text/event-stream", o.s.crlf)
	if o.chat {
		o.delta(map[string]any{"role": "assistant", "content": ""}, "")
	}
}

func (o *openaiEmitter) text(t string) {
	if !o.req.Stream {
		o.content.WriteString(t)
		return
	}
	o.delta(map[string]any{"content": t}, t)
}

func (o *openaiEmitter) thinking(t string) {
	if !o.chat {
		o.s.t.Errorf("llmtest: Thinking in a reply to %s, which has no reasoning output", o.req.Path)
		return
	}
	if !o.req.Stream {
		o.reasoning.WriteString(t)
		return
	}
	o.delta(map[string]any{o.s.reasoningField(): t}, "")
}

// toolCall streams a call as OpenAI does: id, type and name with empty
// arguments first, then the arguments in fragments.
func (o *openaiEmitter) toolCall(id, name, args string, index int) {
	if !o.chat {
		o.s.t.Errorf("llmtest: ToolCall in a reply to %s, which cannot return tool calls", o.req.Path)
		return
	}
	if !o.req.Stream {
		o.calls = append(o.calls, map[string]any{"id": id, "type": "function", "function": map[string]string{"name": name, "arguments": args}})
		return
	}
	o.delta(map[string]any{"tool_calls": []map[string]any{{
		"index": index, "id": id, "type": "function", "function": map[string]string{"name": name, "arguments": ""},
	}}}, "")
	for _, frag := range fragments(args) {
		o.delta(map[string]any{"tool_calls": []map[string]any{{
			"index": index, "function": map[string]string{"arguments": frag},
		}}}, "")
	}
}

// fragments splits s into at most about 16 pieces of at least 8 bytes, on
// rune boundaries.
func fragments(s string) []string {
	size := max(8, len(s)/16)
	var out []string
	for len(s) > size {
		cut := size
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func (o *openaiEmitter) malformed(line string) {
	if !o.req.Stream {
		if !o.answered {
			o.answered = true
			_, _ = o.w.Write([]byte(line))
		}
		return
	}
	o.sw.event([]byte(line))
}

func (o *openaiEmitter) streamError(msg string) {
	if !o.req.Stream {
		o.s.writeError(o.w, o.req, http.StatusInternalServerError, msg)
		o.answered = true
		return
	}
	o.sw.eventJSON(map[string]any{"error": openaiError{Message: msg, Type: "server_error"}})
}

func (o *openaiEmitter) drop() { dropConnection(o.w) }

// endEarly: the events stop with neither a finish reason nor [DONE]; a
// whole answer is the message so far without a finish reason.
func (o *openaiEmitter) endEarly() {
	if o.req.Stream || o.answered {
		return
	}
	o.answered = true
	c := o.envelope(nil)
	msg := map[string]any{"role": "assistant", "content": o.content.String()}
	if len(o.calls) > 0 {
		msg["tool_calls"] = o.calls
	}
	if !o.chat {
		c.Choices = []oaTextChoice{{Text: o.content.String()}}
	} else {
		c.Choices = []oaChatChoice{{Message: msg}}
	}
	writeJSON(o.w, http.StatusOK, c)
}

func (o *openaiEmitter) usage(m replyMeta) json.RawMessage {
	p, c := m.tokens(o.req)
	b, _ := json.Marshal(map[string]int{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c})
	return b
}

func (o *openaiEmitter) final(m replyMeta) {
	if o.answered {
		return
	}
	reason := m.reason
	if reason == "stop" && m.calls > 0 && o.chat {
		reason = "tool_calls"
	}
	if !o.req.Stream {
		o.whole(m, reason)
		return
	}
	if o.chat {
		o.sw.eventJSON(o.envelope([]oaChatChoice{{Delta: map[string]any{}, FinishReason: &reason}}))
	} else {
		o.sw.eventJSON(o.envelope([]oaTextChoice{{FinishReason: &reason}}))
	}
	if o.req.IncludeUsage {
		last := o.envelope([]any{})
		last.Usage = o.usage(m)
		o.sw.eventJSON(last)
	}
	o.sw.event([]byte("[DONE]"))
}

func (o *openaiEmitter) whole(m replyMeta, reason string) {
	c := o.envelope(nil)
	c.Usage = o.usage(m)
	if !o.chat {
		c.Choices = []oaTextChoice{{Text: o.content.String(), FinishReason: &reason}}
		writeJSON(o.w, http.StatusOK, c)
		return
	}
	msg := map[string]any{"role": "assistant", "content": o.content.String()}
	if o.reasoning.Len() > 0 {
		msg[o.s.reasoningField()] = o.reasoning.String()
	}
	if len(o.calls) > 0 {
		msg["tool_calls"] = o.calls
	}
	c.Choices = []oaChatChoice{{Message: msg, FinishReason: &reason}}
	writeJSON(o.w, http.StatusOK, c)
}
