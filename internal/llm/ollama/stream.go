package ollama

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

// chatChunk is one line of a streamed /api/chat response. Fields olly does
// not use (model, created_at, role) are left out so the decoder skips them.
type chatChunk struct {
	Message struct {
		Content   string     `json:"content"`
		Thinking  string     `json:"thinking"`
		ToolCalls []toolCall `json:"tool_calls"`
	} `json:"message"`
	status
}

// generateChunk is one line of a streamed /api/generate response.
type generateChunk struct {
	Response string `json:"response"`
	Thinking string `json:"thinking"`
	status
}

// status is what chat and generate lines both carry besides their text:
// the end of the stream with its reason and counts, or an error.
type status struct {
	Done       bool    `json:"done"`
	DoneReason string  `json:"done_reason"`
	Error      *string `json:"error"`
	metrics
}

// metrics are the counts on the final chunk; durations are nanoseconds.
type metrics struct {
	TotalDuration      int64 `json:"total_duration"`
	LoadDuration       int64 `json:"load_duration"`
	PromptEvalCount    int   `json:"prompt_eval_count"`
	PromptEvalDuration int64 `json:"prompt_eval_duration"`
	EvalCount          int   `json:"eval_count"`
	EvalDuration       int64 `json:"eval_duration"`
}

func (m *metrics) neutral() *llm.Metrics {
	return &llm.Metrics{
		PromptTokens:       m.PromptEvalCount,
		CompletionTokens:   m.EvalCount,
		TotalDuration:      time.Duration(m.TotalDuration),
		LoadDuration:       time.Duration(m.LoadDuration),
		PromptEvalDuration: time.Duration(m.PromptEvalDuration),
		EvalDuration:       time.Duration(m.EvalDuration),
	}
}

// lineStream reads an NDJSON response one object per line. Every line is
// decoded or reported: a malformed line ends the stream with an error that
// quotes it (the seed's parser silently dropped such lines, losing output).
type lineStream[T any] struct {
	b      *wire.Body
	decode func(b *wire.Body, line []byte) (chunk T, done bool, err error)
}

// Recv returns the next chunk; io.EOF after the final one.
func (s *lineStream[T]) Recv() (T, error) {
	var zero T
	if err := s.b.Err(); err != nil {
		return zero, err
	}
	for {
		line, err := s.b.Lines.Next()
		if err != nil {
			return zero, s.b.Finish(s.b.ReadFailure(err))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue // blank lines carry nothing; Ollama sends none
		}
		chunk, done, err := s.decode(s.b, line)
		if err != nil {
			return zero, s.b.Finish(err)
		}
		if done {
			s.b.Finish(io.EOF)
		}
		return chunk, nil
	}
}

// Close releases the connection.
func (s *lineStream[T]) Close() error { return s.b.Close() }

func newChatStream(ctx context.Context, w *wire.Client, call *wire.Call, body io.ReadCloser) llm.Stream[llm.ChatChunk] {
	return &lineStream[llm.ChatChunk]{b: wire.NewBody(ctx, w, call, body), decode: decodeChat}
}

func newGenerateStream(ctx context.Context, w *wire.Client, call *wire.Call, body io.ReadCloser) llm.Stream[llm.GenerateChunk] {
	return &lineStream[llm.GenerateChunk]{b: wire.NewBody(ctx, w, call, body), decode: decodeGenerate}
}

// errNotObject is the cause for a line that is valid JSON but not an object.
var errNotObject = errors.New("not a JSON object")

// unmarshalLine decodes one line into v, which must be an object.
func unmarshalLine(b *wire.Body, line []byte, v any) error {
	if t := bytes.TrimLeft(line, " \t\r"); len(t) == 0 || t[0] != '{' {
		return b.Malformed(line, errNotObject)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return b.Malformed(line, err)
	}
	return nil
}

// decodeLine finishes decoding line into c: where the fast path handed
// over (decoded is false), encoding/json decodes it.
func decodeLine[T any](b *wire.Body, line []byte, c *T, decoded bool) error {
	if decoded {
		return nil
	}
	// A separate value: encoding/json makes what it decodes into escape,
	// which c, on the caller's stack, must not.
	slow := new(T)
	if err := unmarshalLine(b, line, slow); err != nil {
		return err
	}
	*c = *slow
	return nil
}

// failure is the error the server sent in place of a chunk, or nil.
func (st *status) failure(b *wire.Body) error {
	if st.Error == nil {
		return nil
	}
	return b.ServerFailure(wire.ServerError{Message: *st.Error})
}

// final returns the final chunk's reason and counts; none before it.
func (st *status) final() (string, *llm.Metrics) {
	if !st.Done {
		return "", nil
	}
	return st.DoneReason, st.neutral()
}

func decodeChat(b *wire.Body, line []byte) (llm.ChatChunk, bool, error) {
	var c chatChunk
	err := decodeLine(b, line, &c, fastChat(line, &c))
	if err == nil {
		err = c.failure(b)
	}
	if err != nil {
		return llm.ChatChunk{}, false, err
	}
	out := llm.ChatChunk{Content: c.Message.Content, Thinking: c.Message.Thinking, Done: c.Done}
	for _, tc := range c.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, neutralCall(tc))
	}
	out.DoneReason, out.Metrics = c.final()
	return out, c.Done, nil
}

func decodeGenerate(b *wire.Body, line []byte) (llm.GenerateChunk, bool, error) {
	var c generateChunk
	err := decodeLine(b, line, &c, fastGenerate(line, &c))
	if err == nil {
		err = c.failure(b)
	}
	if err != nil {
		return llm.GenerateChunk{}, false, err
	}
	out := llm.GenerateChunk{Response: c.Response, Thinking: c.Thinking, Done: c.Done}
	out.DoneReason, out.Metrics = c.final()
	return out, c.Done, nil
}

// neutralCall converts a tool call. Ollama sends arguments as a JSON
// object; a proxy that sends them as a string holding an object is
// tolerated, and anything else is kept verbatim in RawArguments.
func neutralCall(tc toolCall) llm.ToolCall {
	out := llm.ToolCall{ID: tc.ID, Index: tc.Function.Index, Name: tc.Function.Name}
	args := bytes.TrimSpace(tc.Function.Arguments)
	if len(args) > 0 && args[0] == '{' {
		// Already validated and copied by the line's decoder; skipping
		// SplitArguments avoids a second pass over a file-sized argument.
		out.Arguments = args
		return out
	}
	if len(args) > 0 && args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil {
			args = []byte(s)
		}
	}
	out.Arguments, out.RawArguments = wire.SplitArguments(args)
	return out
}
