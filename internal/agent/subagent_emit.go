package agent

import (
	"context"
	"sync/atomic"

	"github.com/olly-agent/olly/internal/event"
)

// subEmitter is a sub-agent turn's emitter: the isolation filter (seed
// pitfall #34). The person sees that a sub-agent works — its tool groups,
// nested in the wrapper group, its actions and their approvals, errors,
// warnings and its reasoning collapsed on the group — and nothing else:
// its streamed text, thinking blocks, token usage, final message, turn
// boundaries and conversation entries stay in the sub-agent's own
// in-memory conversation. A sub-agent's final_message or turn_finished in
// the parent's log would end the parent's assistant message early; its
// token usage would replace the parent's context meter.
type subEmitter struct {
	parent *run
	group  string // the wrapper group
	// seq numbers the sub-agent's durable events in its own conversation,
	// which orders its entries by seq (compaction keeps those from a seq
	// on) like a stored log does.
	seq atomic.Int64
}

// emit implements session.EmitFunc. Every event is returned to the
// sub-agent's turn, which applies it to its own conversation; only what
// visible allows reaches the parent.
func (f *subEmitter) emit(ctx context.Context, p event.Payload) (event.Event, error) {
	ev := event.Event{Session: f.parent.t.SessionID, Turn: f.parent.t.Number, Data: p}
	if event.Durable(p.EventType()) {
		ev.Seq = f.seq.Add(1)
	}
	var err error
	if out, ok := f.visible(p); ok {
		err = f.parent.emit(ctx, out)
	}
	return ev, err
}

// visible returns what of p the parent's timeline shows, if anything.
func (f *subEmitter) visible(p event.Payload) (event.Payload, bool) {
	switch x := p.(type) {
	case event.ProgressGroupStart:
		// The sub-agent's batches (and the wrapper groups of its own
		// sub-agents) nest in its wrapper group.
		if x.ParentGroupID == "" {
			x.ParentGroupID = f.group
		}
		return x, true
	case event.ThinkingBlock:
		return event.SubagentThinking{GroupID: f.group, Content: x.Content, DurationMs: x.DurationMs}, true
	case event.ToolAction, event.ToolOutput, event.ProgressGroupFinish, event.SubagentThinking,
		event.ApprovalRequested, event.ApprovalResolved, event.Error, event.Warning, event.HookRun:
		// Approvals must reach the person: a sub-agent reading a file
		// outside the workspace waits for an answer. Every hook run is
		// recorded, a sub-agent's too (its tools' and SubagentStop's).
		return p, true
	}
	return nil, false
}
