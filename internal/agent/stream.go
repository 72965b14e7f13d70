package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/toolcall"
)

// streamResult is one streamed response (the seed's StreamResult).
type streamResult struct {
	// display is the answer text as shown: tool-call markup and
	// [TASK_COMPLETE] removed. On failure or cancellation it is what had
	// been shown (or was about to be).
	display string
	// thinking is the reasoning as shown ([TASK_COMPLETE] removed).
	thinking string
	// nativeCalls are the server's tool calls; textCalls those written in
	// the text (toolcall.Extract of it).
	nativeCalls []llm.ToolCall
	textCalls   []toolcall.Call
	// explain words what the model is told about a text call that
	// cannot run (run.explain; nil: its Problem as it is).
	explain func(toolcall.Call) string
	// complete: [TASK_COMPLETE] in the answer's prose; thinkComplete: in
	// the reasoning.
	complete      bool
	thinkComplete bool
	// truncated: the server stopped at the output limit (done_reason
	// length).
	truncated bool
	// Server counts from the final chunk (0: not reported).
	promptTokens     int
	completionTokens int
	// err is the failure that ended the stream early; canceled is set
	// instead when the turn's context ended.
	err      error
	canceled bool
	// endedEarly: the server ended the stream without its final chunk
	// after text or tool calls had arrived (Ollama stops a model that
	// repeats itself this way). What arrived is the response.
	endedEarly bool
}

// streamer runs one request and turns its chunks into display events.
type streamer struct {
	provider llm.Provider
	clock    Clock
	emit     func(ctx context.Context, p event.Payload) error
	iter     int
	// known are the tool names that count in bare JSON (toolcall.Options).
	known map[string]bool
	// text returns the model's dialect and the tools' parameter types
	// (toolcall.Options Prefer and Params), read at each send: a refusal
	// of native tools switches the request to text tool calls between two
	// (model.go). Nil: none.
	text func() (toolcall.Format, map[string]map[string]string)
}

// streamState is the accumulation of one stream.
type streamState struct {
	s      *streamer
	pump   *pump
	filter *toolcall.Filter
	strip  taskStripper

	rawThink strings.Builder
	res      streamResult

	thinkStart, thinkLast time.Time
	thinkOpen             bool // reasoning seen, its block not yet emitted
	got                   bool // answer text or a tool call arrived
	blockLen              int  // length of the thinking in the last emitted block
	// callShown and callName: the spinner line of the text call being
	// written was shown for that name.
	callShown bool
	callName  string
}

// send streams the request prepare builds, and again while retry says the
// server's refusal was dealt with (the request changes: another tool-call
// format, a compacted conversation). A stream the server ended early gets
// a warning; what had arrived is the response.
func (s *streamer) send(ctx context.Context, prepare func() *llm.ChatRequest, retry func(*streamResult) bool) *streamResult {
	res := s.run(ctx, prepare())
	for retry(res) {
		res = s.run(ctx, prepare())
	}
	if res.endedEarly {
		_ = s.emit(ctx, event.Warning{Code: "ended_early",
			Message: "The server stopped the model: it was repeating itself. olly kept what had arrived and carries on."})
	}
	return res
}

// run streams req. It never returns an error itself: failures are in the
// result, with the text shown until then, so the caller can close the
// iteration for the person.
func (s *streamer) run(ctx context.Context, req *llm.ChatRequest) *streamResult {
	opts := toolcall.Options{Known: s.known}
	if s.text != nil {
		opts.Prefer, opts.Params = s.text()
	}
	st := &streamState{s: s, filter: toolcall.NewFilter(opts), pump: newPump(ctx, s.emit, s.iter)}
	stream, err := s.provider.Chat(ctx, req)
	if err != nil {
		st.fail(ctx, err)
		return &st.res
	}
	defer stream.Close()
	st.pump.start(s.clock)
	defer st.pump.halt()
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			st.fail(ctx, err)
			break
		}
		st.chunk(&c)
	}
	st.pump.halt()
	st.finish()
	return &st.res
}

func (st *streamState) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		st.res.canceled = true
		return
	}
	if st.got && errors.Is(err, llm.ErrEndedEarly) {
		// Ollama ends the stream this way when it stops a model that
		// repeats itself: the answer is what arrived, and the loop's
		// repetition handling (duplicate calls, nudges) takes it from
		// there. Nothing arrived: a server error, reported as such.
		st.res.endedEarly = true
		return
	}
	st.res.err = err
}

// chunk takes one chunk: reasoning, answer text, tool calls, the end.
func (st *streamState) chunk(c *llm.ChatChunk) {
	if c.Thinking != "" {
		now := st.s.clock.Now()
		if st.thinkStart.IsZero() {
			st.thinkStart = now
		}
		st.thinkLast, st.thinkOpen = now, true
		st.rawThink.WriteString(c.Thinking)
		if vis := st.strip.Write(c.Thinking); vis != "" {
			st.pump.addThinking(vis)
		}
	}
	if c.Content != "" || len(c.ToolCalls) > 0 {
		st.got = true
	}
	if c.Content != "" {
		if st.thinkOpen && strings.TrimSpace(c.Content) != "" {
			st.closeThinking()
		}
		if vis := st.filter.Write(c.Content); vis != "" {
			st.pump.addText(vis)
		}
		if st.filter.InCall() {
			// Once per call name, not per chunk: a call streams for
			// thousands of chunks.
			if name := st.filter.PendingName(); !st.callShown || name != st.callName {
				st.callShown, st.callName = true, name
				st.pump.setStatus(callStatus(name, nil))
			}
		}
	}
	if len(c.ToolCalls) > 0 {
		// Early collapse: the reasoning is over once calls arrive, even if
		// the server took long to buffer them (seed: "Thought for 8s", not
		// "Thinking…" for the whole buffering).
		st.closeThinking()
		st.res.nativeCalls = append(st.res.nativeCalls, c.ToolCalls...)
		last := c.ToolCalls[len(c.ToolCalls)-1]
		st.pump.setStatus(callStatus(last.Name, last.Arguments))
	}
	if c.Done {
		st.res.truncated = c.DoneReason == llm.DoneLength
		if c.Metrics != nil {
			st.res.promptTokens, st.res.completionTokens = c.Metrics.PromptTokens, c.Metrics.CompletionTokens
		}
	}
}

// closeThinking emits the iteration's thinking block as soon as the
// reasoning ends, with its real duration (to the last reasoning token).
func (st *streamState) closeThinking() {
	if !st.thinkOpen {
		return
	}
	st.thinkOpen = false
	st.emitThinking()
}

func (st *streamState) emitThinking() {
	_, content := st.pump.shown()
	if strings.TrimSpace(content) == "" || len(content) == st.blockLen {
		return
	}
	st.blockLen = len(content)
	ms := st.thinkLast.Sub(st.thinkStart).Milliseconds()
	st.pump.withLock(func() {
		_ = st.s.emit(st.pump.ctx, event.ThinkingBlock{Iteration: st.s.iter, Content: content, DurationMs: ms})
	})
}

// finish concludes the stream: a clean end flushes the filter (repairing a
// cut-off call); a failed or canceled one keeps only what was decided.
func (st *streamState) finish() {
	clean := st.res.err == nil && !st.res.canceled
	if clean {
		if vis := st.filter.Flush(); vis != "" {
			st.pump.addText(vis)
		}
		if vis := st.strip.Flush(); vis != "" {
			st.pump.addThinking(vis)
		}
		st.res.textCalls = st.filter.Calls()
	}
	st.pump.flush()
	// The durable block is emitted by the caller's context, which may be
	// canceled: the thinking already shown must still be recorded.
	st.pump.ctx = context.WithoutCancel(st.pump.ctx)
	st.emitThinking()
	st.res.display, st.res.thinking = st.pump.shown()
	st.res.complete = st.filter.TaskComplete()
	st.res.thinkComplete = toolcall.HasTaskComplete(st.rawThink.String())
}

// callStatus is the spinner line while a call is written: the file being
// written when the arguments name it.
func callStatus(name string, args json.RawMessage) string {
	var a struct {
		Path     string `json:"path"`
		File     string `json:"file"`
		FilePath string `json:"filePath"`
	}
	_ = json.Unmarshal(args, &a) // no path: the generic line
	p := strings.TrimSpace(a.Path + a.File + a.FilePath)
	switch {
	case name == "write_file" && p != "":
		return "Writing " + path.Base(p) + "…"
	case name == "":
		return "Preparing a tool call…"
	}
	return "Preparing " + name + "…"
}
