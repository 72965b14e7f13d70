package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// chatStream turns chat.completion.chunk events into ChatChunks. Content
// and reasoning deltas are passed on as they come; tool calls are
// assembled from their pieces and delivered whole once the model has
// finished (at the finish reason), because a call is only usable complete.
type chatStream struct {
	eventStream
	calls   []*partialCall
	pending []llm.ChatChunk
	next    int   // the first undelivered chunk in pending
	cur     chunk // reused for every event
}

type partialCall struct {
	index int
	id    string
	name  string
	args  []byte
}

func newChatStream(ctx context.Context, w *wire.Client, call *wire.Call, body io.ReadCloser) llm.Stream[llm.ChatChunk] {
	return &chatStream{eventStream: newEventStream(ctx, w, call, body)}
}

// Recv returns the next chunk; io.EOF after the one with Done set.
func (s *chatStream) Recv() (llm.ChatChunk, error) {
	for {
		if s.next < len(s.pending) {
			c := s.pending[s.next]
			s.next++
			if s.next == len(s.pending) {
				s.pending, s.next = s.pending[:0], 0
			}
			if c.Done {
				s.b.Finish(io.EOF)
			}
			return c, nil
		}
		if err := s.b.Err(); err != nil {
			return llm.ChatChunk{}, err
		}
		s.cur = chunk{Choices: s.cur.Choices[:0]}
		err := s.nextChunk(&s.cur)
		switch {
		case errors.Is(err, errDone):
			s.end()
		case err != nil:
			return llm.ChatChunk{}, s.b.Finish(err)
		default:
			s.apply(&s.cur)
		}
	}
}

// apply queues what one event carries.
func (s *chatStream) apply(c *chunk) {
	ch := c.first()
	if ch == nil {
		return // the usage chunk, or another choice
	}
	out := llm.ChatChunk{Content: ch.Delta.Content, Thinking: ch.Delta.ReasoningContent + ch.Delta.Reasoning}
	for i := range ch.Delta.ToolCalls {
		s.addPiece(&ch.Delta.ToolCalls[i])
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		s.finish(ch.FinishReason)
		out.ToolCalls = s.takeCalls()
	}
	if out.Content != "" || out.Thinking != "" || len(out.ToolCalls) > 0 {
		s.pending = append(s.pending, out)
	}
}

// end queues the final chunk, with any calls a server never finished.
func (s *chatStream) end() {
	final := llm.ChatChunk{Done: true, DoneReason: s.doneReason(), Metrics: s.metrics, ToolCalls: s.takeCalls()}
	s.pending = append(s.pending, final)
}

// addPiece merges one tool-call delta into the call it belongs to: by
// index, or, when the server sends none, a new id starts a new call and a
// piece without id continues the last one.
func (s *chatStream) addPiece(d *toolCallDelta) {
	var pc *partialCall
	switch {
	case d.Index.Set:
		for _, c := range s.calls {
			if c.index == d.Index.N {
				pc = c
			}
		}
	case len(s.calls) > 0 && (d.ID == "" || d.ID == s.calls[len(s.calls)-1].id):
		pc = s.calls[len(s.calls)-1]
	}
	if pc == nil {
		pc = &partialCall{index: len(s.calls)}
		if d.Index.Set {
			pc.index = d.Index.N
		}
		s.calls = append(s.calls, pc)
	}
	if pc.id == "" {
		pc.id = d.ID
	}
	// The name comes whole in the first piece; servers that repeat it in
	// later pieces must not double it.
	if n := d.Function.Name; n != "" && n != pc.name {
		pc.name += n
	}
	pc.args = appendArguments(pc.args, d.Function.Arguments)
}

// appendArguments adds a fragment, which is a JSON string (OpenAI). A
// server that sends the arguments as an object instead gets it appended
// as it is.
func appendArguments(dst []byte, frag json.RawMessage) []byte {
	if len(frag) == 0 || string(frag) == "null" {
		return dst
	}
	if frag[0] == '"' {
		if len(frag) >= 2 && frag[len(frag)-1] == '"' && bytes.IndexByte(frag, '\\') < 0 {
			return append(dst, frag[1:len(frag)-1]...) // no escapes: the text is the bytes
		}
		var s string
		if json.Unmarshal(frag, &s) == nil {
			return append(dst, s...)
		}
	}
	return append(dst, frag...)
}

// takeCalls returns the assembled calls and forgets them.
func (s *chatStream) takeCalls() []llm.ToolCall {
	if len(s.calls) == 0 {
		return nil
	}
	out := make([]llm.ToolCall, len(s.calls))
	for i, pc := range s.calls {
		out[i] = llm.ToolCall{ID: pc.id, Index: pc.index, Name: pc.name}
		out[i].Arguments, out[i].RawArguments = wire.SplitArguments(pc.args)
	}
	s.calls = nil
	return out
}

// completionStream turns text_completion events into GenerateChunks.
type completionStream struct {
	eventStream
}

func newCompletionStream(ctx context.Context, w *wire.Client, call *wire.Call, body io.ReadCloser) llm.Stream[llm.GenerateChunk] {
	return &completionStream{eventStream: newEventStream(ctx, w, call, body)}
}

// Recv returns the next chunk; io.EOF after the one with Done set.
func (s *completionStream) Recv() (llm.GenerateChunk, error) {
	for {
		if err := s.b.Err(); err != nil {
			return llm.GenerateChunk{}, err
		}
		var c chunk
		err := s.nextChunk(&c)
		switch {
		case errors.Is(err, errDone):
			s.b.Finish(io.EOF)
			return llm.GenerateChunk{Done: true, DoneReason: s.doneReason(), Metrics: s.metrics}, nil
		case err != nil:
			return llm.GenerateChunk{}, s.b.Finish(err)
		}
		ch := c.first()
		if ch == nil {
			continue
		}
		s.finish(ch.FinishReason)
		if ch.Text != "" {
			return llm.GenerateChunk{Response: ch.Text}, nil
		}
	}
}
