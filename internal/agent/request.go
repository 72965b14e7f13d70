package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/toolcall"
)

// requestBuilder builds a turn's chat requests and keeps them inside the
// context window: what shapes a request (the tool-call format, the tools
// offered, thinking, whether images are sent) and the automatic
// compaction, before a request that nears the window (prepare) and once
// after the server refused one as too long (overflowed). The run binds it
// to the turn once (bindRequests) and passes the iteration; the sizes and
// the session memory are the contextState's (compact_state.go).
type requestBuilder struct {
	a     *Agent
	t     *session.Turn
	cfg   *Config // the run's (its mode may change MaxIterations, not what is read here)
	cs    *contextState
	model string
	emit  func(ctx context.Context, p event.Payload) error
	// system returns the system message: the prompt and the memory block
	// (systemMessage, compact_state.go).
	system func() string

	format session.Format
	// dialect is the tool-call markup of the model's template
	// (toolcall.TemplateDialect): text tool calls are asked for in it and
	// read with it first.
	dialect toolcall.Format
	specs   []llm.Tool // offered to the model
	// params are the offered tools' parameter types, with which values
	// written as element text are read (toolcall.Options.Params); nil
	// with native tool calls. Set with the format (useFormat).
	params map[string]map[string]string
	think  *llm.Think // the thinking level sent
	vision bool       // the model reads images
	// compactedAt and retriedAt are the iterations of the last compaction
	// and of the last overflow retry (0: none).
	compactedAt int
	retriedAt   int
	// hooks are the turn's hooks when it is the person's own (nil for a
	// sub-agent, whose compaction is of its own conversation): the
	// PreCompact hooks, and the next turn's SessionStart source.
	hooks any
	// encoded keeps the wire encoding of the messages sent, so that each
	// is encoded once per run, not once per iteration (llm.EncodeCache).
	encoded *llm.EncodeCache
	// msgs is the last request's message slice, reused by the next: a
	// provider does not keep a request once Chat returned (llm.Provider).
	// mark is what the conversation left in it (session.Render): the next
	// request renders only the messages after the last assistant message,
	// and same of its messages after the system message are the last
	// one's, which the estimate does not look at again. markVision is the
	// vision the kept messages were prepared for.
	msgs       []llm.Message
	mark       session.RenderMark
	markVision bool
	same       int
	// reqID is the number of the last request built (llm.ChatRequest.ID,
	// from the encode cache): a request promises the cache the messages it
	// kept from the one before.
	reqID uint64
}

// textDialect is the dialect text tool calls are read with first: the
// model's, with text tool calls; none with native ones, whose calls come
// from the server (text the model writes besides is read as before).
func (b *requestBuilder) textDialect() toolcall.Format {
	if b.format != session.FormatText {
		return ""
	}
	return b.dialect
}

// useFormat sets the tool-call format, and with text tool calls the
// offered tools' parameter types, parsed from their schemas once here
// rather than at every iteration (the tools are offered before the turn
// begins, and do not change during it).
func (b *requestBuilder) useFormat(f session.Format) {
	b.format, b.params = f, nil
	if f == session.FormatText {
		b.params = toolcall.ParamTypes(b.specs)
	}
}

// bindRequests gives the request builder what it reads of the turn; once
// the run's model is known, before the first request.
func (r *run) bindRequests() {
	b := &r.req
	b.a, b.t, b.cfg, b.cs, b.model = r.a, r.t, &r.cfg, &r.cs, r.model
	b.emit, b.system = r.emit, r.systemMessage
	b.encoded = new(llm.EncodeCache)
	if r.depth == 0 {
		b.hooks = r.env.Hooks
	}
}

// request builds the iteration's chat request from the turn's
// conversation, which holds exactly what the log holds.
func (b *requestBuilder) request() *llm.ChatRequest {
	// The system message (+ session memory, compact_state.go), then the
	// history rendered into the same slice. History messages never carry
	// reasoning (seed pitfall #12): the renderer sets no Thinking.
	sys := llm.Message{Role: llm.RoleSystem, Content: b.system()}
	old := b.msgs
	if len(old) == 0 {
		old = append(old, sys)
	}
	old[0] = sys
	if b.markVision != b.vision {
		b.mark, b.markVision = session.RenderMark{}, b.vision
	}
	msgs, mark, same := b.t.History.Render(old, 1, b.format, b.mark)
	if len(old) > len(msgs) {
		clear(old[len(msgs):]) // nothing of the last request stays referenced
	}
	b.msgs, b.mark, b.same = msgs, mark, same
	if !b.vision {
		// Images of earlier prompts, for a model that cannot read them;
		// the kept messages had theirs dropped already.
		dropImages(msgs[1+same:])
	}
	// truncate false: a prompt over num_ctx is refused (and compacted,
	// compact.go), never cut silently by the server.
	req := &llm.ChatRequest{Model: b.model, Messages: msgs, Think: b.think, KeepAlive: b.cfg.KeepAlive, Truncate: llm.Ptr(false),
		Options: llm.Options{NumCtx: llm.Ptr(b.cs.numCtx), Temperature: llm.Ptr(b.cfg.Temperature)}, Cache: b.encoded}
	if b.cfg.MaxTokens > 0 {
		req.Options.NumPredict = llm.Ptr(b.cfg.MaxTokens)
	}
	if b.format == session.FormatNative {
		req.Tools = b.specs
	}
	prev := b.reqID
	b.reqID = b.encoded.NewID()
	req.ID = b.reqID
	if same > 0 {
		req.KeptFrom, req.Kept = prev, same
	}
	return req
}

// prepare builds the iteration's request so that it fits the window:
// olly never relies on the server to fit the prompt (Ollama would drop the
// oldest messages silently — the task and the model's own calls first). The
// conversation is compacted first when the prompt would reach the
// threshold, or would not leave room for the answer (then whatever the
// gain), or when the server was seen cutting the last prompt; if it still
// does not fit, the largest tool results of this request are shortened
// (fit.go). The request's estimate is recorded for token_usage.
func (b *requestBuilder) prepare(ctx context.Context, iter int) *llm.ChatRequest {
	req := b.request()
	est := b.cs.estimate(req, b.same)
	limit := b.cs.promptLimit()
	over := b.cs.fitSize(est.total) > limit || b.cs.serverCut
	if b.compactedAt != iter && (over || b.cs.calibrated(est.total) >= int(compactThreshold*float64(b.cs.numCtx))) &&
		b.a.AutoCompaction(b.t.SessionID) {
		gain := int(minGain * float64(b.cs.numCtx))
		if over {
			gain = 0
		}
		if b.compactTurn(ctx, iter, max(b.cs.calibrated(est.total), b.cs.cutCount), gain) == nil {
			req = b.request()
			est = b.cs.estimate(req, b.same)
		}
	}
	b.cs.serverCut, b.cs.cutCount = false, 0
	if b.cs.fitSize(est.total) > limit {
		req, est = b.cs.trimResults(req, est, limit)
		// Results were shortened in place: this request promises nothing,
		// and the next one renders its messages anew.
		req.KeptFrom, req.Kept = 0, 0
		b.mark = session.RenderMark{}
	}
	b.cs.last = est
	return req
}

// overflowed handles a request the server refused because the prompt did
// not fit the context window: it compacts and reports true, once per
// iteration, so the caller sends the request again; a second refusal (or
// nothing to compact) gets advice added to its error and false. Only when
// nothing was shown yet: a retry must not show the person a second
// answer.
func (b *requestBuilder) overflowed(ctx context.Context, iter int, res *streamResult) bool {
	if res.err == nil || !errors.Is(res.err, llm.ErrContextOverflow) || ctx.Err() != nil ||
		res.display != "" || res.thinking != "" {
		return false
	}
	if !b.a.AutoCompaction(b.t.SessionID) {
		res.err = fmt.Errorf("%w — automatic compaction is off for this session: compact with /compact, or turn it back on", res.err)
		return false
	}
	if b.retriedAt == iter {
		res.err = fmt.Errorf("%w — even after compacting the conversation; raise the context window (`olly config set agent.maxContextWindow <tokens>`, or the model's cap in `olly models`) or start a new session with /new", res.err)
		return false
	}
	b.retriedAt = iter
	switch err := b.compactTurn(ctx, iter, b.cs.calibrated(b.cs.last.total), 0); {
	case errors.Is(err, ErrNothingToCompact):
		res.err = fmt.Errorf("%w — and the conversation is too short to compact: a message or attachment is larger than the window; raise the context window (`olly config set agent.maxContextWindow <tokens>`) or attach less", res.err)
		return false
	case err != nil:
		res.err = fmt.Errorf("%w — and compacting the conversation failed: %v", res.err, err)
		return false
	}
	return true
}

// compactTurn compacts the running turn's conversation; nil means it did.
// gain is the least number of tokens the compaction must remove (0: any).
// The memory block in the system prompt is refreshed at the same time (see
// systemMessage).
func (b *requestBuilder) compactTurn(ctx context.Context, iter, before, gain int) error {
	job := &compactJob{conv: b.t.History, format: b.format, model: b.model, numCtx: b.cs.numCtx,
		thinks: b.think != nil, memory: b.cs.snapshot(), task: b.t.Input.Text, before: before, ratio: b.cs.ratio,
		minGain: gain, emit: b.emit}
	if b.hooks != nil {
		job.preCompact = func(ctx context.Context) { preCompact(ctx, b.hooks, b.t.SessionID, "auto", "", b.emit) }
	}
	_, err := b.a.compact(ctx, job)
	if err != nil {
		if !errors.Is(err, ErrNothingToCompact) && ctx.Err() == nil {
			b.a.logger().Warn("context compaction failed", "session", b.t.SessionID, "turn", b.t.Number, "error", err)
		}
		return err
	}
	b.compactedAt = iter
	b.cs.refreshBlock()
	if b.hooks != nil {
		b.a.markStart(b.t.SessionID, startCompact) // hooks_events.go
	}
	return nil
}
