package agent

// Context compaction (seed 000, "AgentContextCompactor").
//
// API for other packages — agreed signature, do not change without
// telling the context-management owner:
//
//	func (a *Agent) Compact(ctx context.Context, t *session.Turn, instructions string) error
//
// Compact implements session.Compactor: the session service runs /compact
// [instructions] as a turn of its own (Service.compact → withTurn) and
// calls it with that turn; the summary is steered by the person's
// instructions and recorded through t.Emit as a compaction event. It
// returns ErrNothingToCompact when the conversation is too short to
// compact.
//
// Inside the agent loop, compaction runs by itself: before each request
// whose prompt would reach 70% of the context window (prepare), and once
// when the server says the prompt did not fit (overflowed), after which
// the request is sent again; both are the requestBuilder's (request.go).

import (
	"context"
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
)

// Compaction settings (seed 000).
const (
	// compactThreshold is the share of the context window at which the
	// conversation is compacted.
	compactThreshold = 0.70
	// keepMessages are kept verbatim after the summary (with the system
	// prompt), more when a tool result would be separated from its call.
	keepMessages = 6
	// minGain is the share of the context window an automatic compaction
	// must free. Without it, a conversation whose last six messages alone
	// pass the threshold would be summarised again at every iteration,
	// each time for a model call's cost and nothing gained.
	minGain = 0.10
)

// ErrNothingToCompact is returned by Compact when the conversation has no
// more than the messages a compaction keeps.
var ErrNothingToCompact = fmt.Errorf("nothing to compact: the conversation is no longer than the last %d messages, which compaction keeps", keepMessages)

// Compact summarises the conversation of t's session now: the /compact
// command (session.Compactor). instructions, if any, tell the summariser
// what to keep. The summary and the first kept message are recorded as a
// compaction event through t.Emit, so this turn's history and every later
// rebuild of the session use them.
func (a *Agent) Compact(ctx context.Context, t *session.Turn, instructions string) error {
	ctx, set := a.pin(ctx) // setup.go
	model := t.Model
	if model == "" {
		model = set.cfg.Model
	}
	if model == "" {
		return errors.New("no model is configured to write the summary: set one with `olly config set agentMode.model <name>`")
	}
	d, err := a.modelDetails(ctx, model)
	if err != nil {
		return err
	}
	format := session.FormatNative
	if !d.Capabilities.Tools {
		format = session.FormatText
	}
	mem := a.loadMemory(t.SessionID, t.Memory)
	emit := func(ctx context.Context, p event.Payload) error { _, err := t.Emit(ctx, p); return err }
	job := &compactJob{conv: t.History, format: format, model: model, numCtx: set.cfg.numCtx(model, d),
		thinks: d.Capabilities.Thinking, memory: mem, instructions: instructions, emit: emit}
	if a.hooksOf != nil {
		hooks := a.hooksOf(t)
		job.preCompact = func(ctx context.Context) { preCompact(ctx, hooks, t.SessionID, "manual", instructions, emit) }
	}
	if _, err = a.compact(ctx, job); err != nil {
		return err
	}
	a.markStart(t.SessionID, startCompact) // hooks_events.go
	return nil
}

// AutoCompaction reports whether the conversation of session id is
// compacted automatically when it nears the context window, or when the
// server refuses a prompt as too long (on unless SetAutoCompaction turned
// it off).
func (a *Agent) AutoCompaction(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.noAutoCompact[id]
}

// SetAutoCompaction turns automatic compaction of session id on or off,
// from the next iteration of a running turn on. /compact works either
// way. The switch is not stored: it lasts as long as this olly runs.
func (a *Agent) SetAutoCompaction(id string, on bool) error {
	if id == "" {
		return errors.New("set auto-compaction: no session id")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if on {
		delete(a.noAutoCompact, id)
		return nil
	}
	if a.noAutoCompact == nil {
		a.noAutoCompact = map[string]bool{}
	}
	a.noAutoCompact[id] = true
	return nil
}

// compactJob is one compaction: the conversation and what the summary
// call needs.
type compactJob struct {
	conv   *session.Conversation
	format session.Format
	model  string
	numCtx int
	// thinks: the model reasons by default; the summary call turns it off.
	thinks bool
	memory *sessionMemory
	// task is the running turn's prompt, quoted in the summary when its
	// message is compacted away ("" outside a turn).
	task         string
	instructions string
	// before is the prompt size before compacting (0: estimate it), and
	// ratio the calibration of estimates (0: none).
	before int
	ratio  float64
	// minGain: compact only when the messages replaced estimate at least
	// this many tokens (0: always).
	minGain int
	emit    func(ctx context.Context, p event.Payload) error
	// preCompact runs the PreCompact hooks once the compaction is sure
	// to happen (nil: none).
	preCompact func(ctx context.Context)
}

// compact summarises what comes before the cut and records the compaction
// event. A failed summary call falls back to a summary built from the tool
// calls (with a warning); only a canceled context, an event that could not
// be recorded, or nothing to compact make it fail.
func (a *Agent) compact(ctx context.Context, j *compactJob) (*event.Compaction, error) {
	cut, ok := j.conv.CompactionCut(j.format, keepMessages)
	if !ok {
		return nil, ErrNothingToCompact
	}
	if j.preCompact != nil {
		j.preCompact(ctx)
	}
	cal := contextState{ratio: j.ratio}
	if j.before == 0 {
		j.before = cal.calibrated(estimateMessages(j.conv.Messages(j.format)))
	}
	removed := cal.calibrated(estimateMessages(j.conv.MessagesBefore(j.format, cut)))
	if removed < j.minGain {
		return nil, ErrNothingToCompact
	}
	old := j.conv.MessagesBefore(session.FormatNative, cut)
	_ = j.emit(ctx, event.Status{Text: "Compacting the conversation…"})
	summary, err := a.summarize(ctx, j, old)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		a.logger().Warn("context compaction: the summary call failed; using a summary built from the tool calls", "model", j.model, "error", err)
		summary = fallbackSummary(old, j.memory, err)
		_ = j.emit(ctx, event.Warning{Code: "compaction",
			Message: fmt.Sprintf("The model could not summarise the conversation (%v); olly compacted it with a summary built from the tool calls instead.", err)})
	}
	summary += currentRequest(old, j.task)
	added := cal.calibrated(estimateTokens(summary) + messageOverhead + summaryIntroTokens)
	c := event.Compaction{Summary: summary, FirstKeptSeq: cut, TokensBefore: j.before,
		TokensAfter: max(j.before-removed+added, added), Instructions: j.instructions}
	if err := j.emit(ctx, c); err != nil {
		return nil, fmt.Errorf("record the compaction: %w", err)
	}
	return &c, nil
}

// summaryIntroTokens is the sentence the conversation puts before a
// summary (session's summaryIntro).
const summaryIntroTokens = 20

// estimateMessages estimates rendered messages.
func estimateMessages(msgs []llm.Message) int {
	n := 0
	for i := range msgs {
		n += estimateMessage(nil, &msgs[i])
	}
	return n
}
