package llmtest

import (
	"fmt"
	"net/http"
	"time"
)

// Response is what the server does with one request: stream a scripted
// reply, fail with an HTTP status, or hang. Build one with Reply, Status,
// ModelNotFound, ContextOverflow or Hang.
type Response struct {
	kind    responseKind
	status  int
	message string
	parts   []Part
}

type responseKind int

const (
	kindReply responseKind = iota
	kindStatus
	kindNotFound
	kindOverflow
	kindHang
	kindDisconnect
)

// String describes the response, for failure messages.
func (r Response) String() string {
	switch r.kind {
	case kindStatus:
		return fmt.Sprintf("Status(%d, %q)", r.status, r.message)
	case kindNotFound:
		return "ModelNotFound()"
	case kindOverflow:
		return "ContextOverflow()"
	case kindHang:
		return "Hang()"
	case kindDisconnect:
		return "Disconnect()"
	}
	return fmt.Sprintf("Reply(%d parts)", len(r.parts))
}

// Part is one step of a streamed reply: a piece of output, a setting of the
// final chunk, a pause, or a fault.
type Part struct {
	kind     partKind
	text     string
	name     string
	id       string
	prompt   int
	complete int
	d        [3]time.Duration
}

type partKind int

const (
	partText partKind = iota
	partThinking
	partToolCall
	partUsage
	partTimings
	partDoneReason
	partDelay
	partMalformed
	partDrop
	partStreamError
	partEndEarly
	partStall
)

// Reply streams parts in order, each output part as its own chunk (or, for
// a tool call in the OpenAI dialect, as a run of argument-fragment chunks),
// then the final chunk with the done reason and usage.
func Reply(parts ...Part) Response { return Response{kind: kindReply, parts: parts} }

// Status answers with an HTTP error and the dialect's error body carrying
// message: {"error":"message"} for Ollama, {"error":{"message":...}} for
// OpenAI. A 5xx is retried by the clients, so the next queued response
// serves the retry.
func Status(code int, message string) Response {
	return Response{kind: kindStatus, status: code, message: message}
}

// ModelNotFound answers with the 404 and body the real server sends for a
// model that is not installed.
func ModelNotFound() Response { return Response{kind: kindNotFound, status: http.StatusNotFound} }

// ContextOverflow answers with the 400 a server sends when the prompt does
// not fit the context window (llama.cpp's exceed_context_size_error for the
// OpenAI dialect).
func ContextOverflow() Response { return Response{kind: kindOverflow, status: http.StatusBadRequest} }

// Hang sends nothing, not even headers, until the client gives up; the
// server then counts a cancellation (see Server.WaitCanceled).
func Hang() Response { return Response{kind: kindHang} }

// Disconnect closes the connection without answering, as a server that
// crashes on the request does. The clients retry it.
func Disconnect() Response { return Response{kind: kindDisconnect} }

// Text is a content delta.
func Text(s string) Part { return Part{kind: partText, text: s} }

// Thinking is a reasoning delta (Ollama "thinking"; OpenAI
// "reasoning_content", or "reasoning" with the Ollama flavor).
func Thinking(s string) Part { return Part{kind: partThinking, text: s} }

// ToolCall is a call of the named tool. arguments is sent as the JSON
// object it holds (Ollama) or as the string itself, split into fragments
// across chunks the way OpenAI streams it. Text that is not JSON is sent as
// a JSON string in the Ollama dialect, to exercise the clients' handling of
// malformed calls. Calls get ids call_1, call_2, ... in order of serving.
func ToolCall(name, arguments string) Part {
	return Part{kind: partToolCall, name: name, text: arguments}
}

// ToolCallID is ToolCall with a chosen id.
func ToolCallID(id, name, arguments string) Part {
	return Part{kind: partToolCall, id: id, name: name, text: arguments}
}

// Usage sets the token counts reported with the final chunk. Without it the
// server reports its own count of the prompt the model was given (after
// any truncation: see context.go) — for generate requests a quarter of the
// characters — and one token per output part.
func Usage(prompt, completion int) Part {
	return Part{kind: partUsage, prompt: prompt, complete: completion}
}

// Timings sets the durations of Ollama's final chunk (load, prompt
// evaluation, generation; the total is their sum). The default is 1 ms,
// 2 ms and 3 ms.
func Timings(load, promptEval, eval time.Duration) Part {
	return Part{kind: partTimings, d: [3]time.Duration{load, promptEval, eval}}
}

// DoneReason sets the final chunk's done reason ("stop" by default,
// "length"). For the OpenAI dialect "stop" becomes "tool_calls" when the
// reply made calls, as OpenAI reports it.
func DoneReason(reason string) Part { return Part{kind: partDoneReason, text: reason} }

// Delay pauses before the next part.
func Delay(d time.Duration) Part { return Part{kind: partDelay, d: [3]time.Duration{d}} }

// MalformedLine sends line verbatim as a stream line (Ollama) or as an
// event's data (OpenAI), then carries on.
func MalformedLine(line string) Part { return Part{kind: partMalformed, text: line} }

// DropConnection closes the connection in the middle of the response
// body, as a crashing server or a proxy timeout does.
func DropConnection() Part { return Part{kind: partDrop} }

// StreamError sends an error object inside the stream ({"error":"msg"} for
// Ollama, an OpenAI error object as event data) and ends the stream.
func StreamError(message string) Part { return Part{kind: partStreamError, text: message} }

// EndEarly ends the response cleanly without the final chunk (Ollama) or
// finish reason and [DONE] (OpenAI), as Ollama does when it stops a model
// that repeats itself (about 30 identical or blank tokens in a row). With
// "stream": false Ollama answers the text so far with "done": false and
// no counts.
func EndEarly() Part { return Part{kind: partEndEarly} }

// Stall stops sending, with the connection open, until the client gives
// up; the server then counts a cancellation.
func Stall() Part { return Part{kind: partStall} }

// replyMeta collects the parts that shape the final chunk.
type replyMeta struct {
	reason    string
	usage     *Part
	timings   [3]time.Duration
	calls     int
	outputs   int
	hasUsage  bool
	hasReason bool
}

func metaOf(parts []Part) replyMeta {
	m := replyMeta{reason: "stop", timings: [3]time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}}
	for i := range parts {
		p := &parts[i]
		switch p.kind {
		case partDoneReason:
			m.reason, m.hasReason = p.text, true
		case partUsage:
			m.usage, m.hasUsage = p, true
		case partTimings:
			m.timings = p.d
		case partToolCall:
			m.calls++
			m.outputs++
		case partText, partThinking:
			m.outputs++
		}
	}
	return m
}

// tokens returns the prompt and completion counts to report.
func (m replyMeta) tokens(r *Request) (prompt, completion int) {
	if m.usage != nil {
		return m.usage.prompt, m.usage.complete
	}
	if r.servedTokens > 0 {
		return r.servedTokens, max(m.outputs, 1)
	}
	return estimateTokens(r), max(m.outputs, 1)
}
