package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// chunk is one event of a streamed chat or completion response; only the
// first choice is read (olly never asks for more than one).
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Timings *timings        `json:"timings"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta is a piece of a streamed tool call: the first piece has the
// id and name, later ones fragments of the arguments text. Index says which
// call a piece belongs to; some servers leave it out.
type toolCallDelta struct {
	Index    optInt `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// optInt is an integer that may be absent (or null), without the
// allocation of a *int on every tool-call piece.
type optInt struct {
	N   int
	Set bool
}

// UnmarshalJSON reads a number; null leaves the value unset.
func (o *optInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = optInt{}
		return nil
	}
	if err := json.Unmarshal(b, &o.N); err != nil {
		return err
	}
	o.Set = true
	return nil
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// timings is llama.cpp's extra report on the last chunk, in milliseconds.
type timings struct {
	PromptMS    float64 `json:"prompt_ms"`
	PredictedMS float64 `json:"predicted_ms"`
}

// eventStream is the state both streams share: the SSE reader over the
// body, the finish reason and usage seen so far.
type eventStream struct {
	b        *wire.Body
	ev       eventReader
	reason   string
	finished bool
	metrics  *llm.Metrics
}

func newEventStream(ctx context.Context, w *wire.Client, call *wire.Call, body io.ReadCloser) eventStream {
	b := wire.NewBody(ctx, w, call, body)
	return eventStream{b: b, ev: eventReader{lines: b.Lines}}
}

// errDone marks the "[DONE]" event.
var errDone = errors.New("done")

// nextChunk reads and decodes the next event. It returns errDone at the
// end of the stream — "[DONE]", or the end of the body after a finish
// reason (some servers omit "[DONE]") — and an *llm.Error for anything
// else that ends it.
func (s *eventStream) nextChunk(c *chunk) error {
	event, data, err := s.ev.next()
	if err != nil {
		if errors.Is(err, io.EOF) && s.finished {
			return errDone
		}
		return s.b.ReadFailure(err)
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
		return errDone
	}
	if string(event) == "error" {
		return s.serverFailure(data)
	}
	if !fastChunk(data, c) {
		*c = chunk{}
		slow := new(chunk)
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			return s.b.MalformedAt(data, s.ev.dataLine, errors.New("event data is not a JSON object"))
		}
		if err := json.Unmarshal(data, slow); err != nil {
			return s.b.MalformedAt(data, s.ev.dataLine, err)
		}
		*c = *slow
	}
	if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) || c.Object == "error" {
		return s.serverFailure(data)
	}
	if c.Usage != nil {
		s.metric().PromptTokens = c.Usage.PromptTokens
		s.metric().CompletionTokens = c.Usage.CompletionTokens
	}
	if c.Timings != nil {
		s.metric().PromptEvalDuration = time.Duration(c.Timings.PromptMS * float64(time.Millisecond))
		s.metric().EvalDuration = time.Duration(c.Timings.PredictedMS * float64(time.Millisecond))
	}
	return nil
}

func (s *eventStream) metric() *llm.Metrics {
	if s.metrics == nil {
		s.metrics = &llm.Metrics{}
	}
	return s.metrics
}

func (s *eventStream) serverFailure(data []byte) error {
	var e errorBody
	if json.Unmarshal(data, &e) != nil {
		return s.b.ServerFailure(wire.ServerError{Message: llm.QuoteLine(data)})
	}
	se, ok := e.server()
	if !ok {
		se.Message = llm.QuoteLine(data)
	}
	return s.b.ServerFailure(se)
}

// finish records a finish reason, normalised: a turn that ended in tool
// calls ended normally ("stop"); "length" and others stay as they are.
func (s *eventStream) finish(reason *string) {
	if reason == nil || *reason == "" {
		return
	}
	s.finished = true
	switch *reason {
	case "tool_calls", "function_call", "stop":
		s.reason = llm.DoneStop
	default:
		s.reason = *reason
	}
}

func (s *eventStream) doneReason() string {
	if s.reason == "" {
		return llm.DoneStop
	}
	return s.reason
}

// Close releases the connection.
func (s *eventStream) Close() error { return s.b.Close() }

// first returns the first choice with index 0, or nil.
func (c *chunk) first() *choice {
	for i := range c.Choices {
		if c.Choices[i].Index == 0 {
			return &c.Choices[i]
		}
	}
	return nil
}
