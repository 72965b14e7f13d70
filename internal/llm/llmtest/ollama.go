package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Ollama wire shapes, field for field in the order Ollama writes them.

type outChat struct {
	Model      string     `json:"model"`
	CreatedAt  string     `json:"created_at"`
	Message    outMessage `json:"message"`
	DoneReason string     `json:"done_reason,omitempty"`
	Done       bool       `json:"done"`
	*outMetrics
}

type outGenerate struct {
	Model      string `json:"model"`
	CreatedAt  string `json:"created_at"`
	Response   string `json:"response"`
	Thinking   string `json:"thinking,omitempty"`
	DoneReason string `json:"done_reason,omitempty"`
	Done       bool   `json:"done"`
	Context    []int  `json:"context,omitempty"`
	*outMetrics
}

type outMessage struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Thinking  string    `json:"thinking,omitempty"`
	ToolCalls []outCall `json:"tool_calls,omitempty"`
}

type outCall struct {
	ID       string      `json:"id,omitempty"`
	Function outFunction `json:"function"`
}

type outFunction struct {
	Index     int             `json:"index"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type outMetrics struct {
	TotalDuration      int64 `json:"total_duration,omitempty"`
	LoadDuration       int64 `json:"load_duration,omitempty"`
	PromptEvalCount    int   `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64 `json:"prompt_eval_duration,omitempty"`
	EvalCount          int   `json:"eval_count,omitempty"`
	EvalDuration       int64 `json:"eval_duration,omitempty"`
}

func metricsOf(m replyMeta, req *Request) *outMetrics {
	prompt, completion := m.tokens(req)
	return &outMetrics{
		TotalDuration:      int64(m.timings[0] + m.timings[1] + m.timings[2]),
		LoadDuration:       int64(m.timings[0]),
		PromptEvalCount:    prompt,
		PromptEvalDuration: int64(m.timings[1]),
		EvalCount:          completion,
		EvalDuration:       int64(m.timings[2]),
	}
}

// ollamaArgs sends a JSON argument text as the value it holds and anything
// else as a string, which the real server never does but clients must
// survive.
func ollamaArgs(args string) json.RawMessage {
	if strings.TrimSpace(args) != "" && json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// ollamaStream frames a reply as NDJSON, one chunk per part.
type ollamaStream struct {
	s   *Server
	w   http.ResponseWriter
	req *Request
	gen bool
	sw  *streamWriter
}

func (o *ollamaStream) start() { o.sw = newStreamWriter(o.w, "application/x-ndjson", false) }

func (o *ollamaStream) chat(msg outMessage) {
	msg.Role = "assistant"
	o.sw.line(outChat{Model: o.req.Model, CreatedAt: now(), Message: msg})
}

func (o *ollamaStream) text(t string) {
	if o.gen {
		o.sw.line(outGenerate{Model: o.req.Model, CreatedAt: now(), Response: t})
		return
	}
	o.chat(outMessage{Content: t})
}

func (o *ollamaStream) thinking(t string) {
	if o.gen {
		o.sw.line(outGenerate{Model: o.req.Model, CreatedAt: now(), Thinking: t})
		return
	}
	o.chat(outMessage{Thinking: t})
}

func (o *ollamaStream) toolCall(id, name, args string, index int) {
	if o.gen {
		o.s.t.Errorf("llmtest: ToolCall in a reply to %s, which cannot return tool calls", o.req.Path)
		return
	}
	o.chat(outMessage{ToolCalls: []outCall{{ID: id, Function: outFunction{Index: index, Name: name, Arguments: ollamaArgs(args)}}}})
}

func (o *ollamaStream) malformed(line string) { o.sw.raw([]byte(line + "\n")) }

func (o *ollamaStream) streamError(msg string) { o.sw.line(map[string]string{"error": msg}) }

func (o *ollamaStream) drop() { o.sw.drop() }

// endEarly: the stream simply stops; no line with done follows.
func (o *ollamaStream) endEarly() {}

func (o *ollamaStream) final(m replyMeta) {
	metrics := metricsOf(m, o.req)
	if o.gen {
		o.sw.line(outGenerate{Model: o.req.Model, CreatedAt: now(), DoneReason: m.reason, Done: true, Context: []int{1, 2, 3}, outMetrics: metrics})
		return
	}
	o.sw.line(outChat{Model: o.req.Model, CreatedAt: now(), Message: outMessage{Role: "assistant"}, DoneReason: m.reason, Done: true, outMetrics: metrics})
}

// ollamaWhole answers a request with "stream": false: one object holding
// the whole reply.
type ollamaWhole struct {
	s        *Server
	w        http.ResponseWriter
	req      *Request
	gen      bool
	msg      outMessage
	answered bool
}

func (o *ollamaWhole) start()            {}
func (o *ollamaWhole) text(t string)     { o.msg.Content += t }
func (o *ollamaWhole) thinking(t string) { o.msg.Thinking += t }
func (o *ollamaWhole) drop()             { dropConnection(o.w) }

// endEarly answers what was generated with "done": false and no counts,
// as Ollama does for "stream": false when it stopped the model.
func (o *ollamaWhole) endEarly() {
	if o.answered {
		return
	}
	o.answered = true
	if o.gen {
		writeJSON(o.w, http.StatusOK, outGenerate{Model: o.req.Model, CreatedAt: now(), Response: o.msg.Content, Thinking: o.msg.Thinking})
		return
	}
	o.msg.Role = "assistant"
	writeJSON(o.w, http.StatusOK, outChat{Model: o.req.Model, CreatedAt: now(), Message: o.msg})
}
func (o *ollamaWhole) streamError(m string) {
	o.s.writeError(o.w, o.req, http.StatusInternalServerError, m)
}

func (o *ollamaWhole) toolCall(id, name, args string, index int) {
	o.msg.ToolCalls = append(o.msg.ToolCalls, outCall{ID: id, Function: outFunction{Index: index, Name: name, Arguments: ollamaArgs(args)}})
}

func (o *ollamaWhole) malformed(line string) {
	if !o.answered {
		o.answered = true
		o.w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = o.w.Write([]byte(line))
	}
}

func (o *ollamaWhole) final(m replyMeta) {
	if o.answered {
		return
	}
	metrics := metricsOf(m, o.req)
	if o.gen {
		writeJSON(o.w, http.StatusOK, outGenerate{Model: o.req.Model, CreatedAt: now(), Response: o.msg.Content, Thinking: o.msg.Thinking, DoneReason: m.reason, Done: true, Context: []int{1, 2, 3}, outMetrics: metrics})
		return
	}
	o.msg.Role = "assistant"
	writeJSON(o.w, http.StatusOK, outChat{Model: o.req.Model, CreatedAt: now(), Message: o.msg, DoneReason: m.reason, Done: true, outMetrics: metrics})
}
