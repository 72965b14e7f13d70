package agent

import (
	"context"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// The hook events beyond a turn's own (docs/extensibility.md): which
// SessionStart source a turn has, PreCompact before a compaction, and
// SubagentStop when a sub-agent is about to finish.

// SessionStart sources (Claude Code's names; internal/hooks has them too).
const (
	startStartup = "startup"
	startResume  = "resume"
	startClear   = "clear"
	startCompact = "compact"
)

// subagentHooks run when a sub-agent is about to finish (*hooks.Runner).
type subagentHooks interface {
	SubagentStopping(ctx context.Context, session string, active bool) (reason string, runs []event.HookRun)
}

// compactHooks run before the conversation is compacted (*hooks.Runner).
type compactHooks interface {
	Compacting(ctx context.Context, session, trigger, instructions string) []event.HookRun
}

// startSource is the SessionStart source of turn t ("" when none fires):
// what happened to the session since this olly last ran a turn of it —
// compacted, started over by /new (SessionCleared), started, or resumed
// (its first turn here, the session already had turns).
func (a *Agent) startSource(t *session.Turn) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hookStart == nil {
		a.hookStart = map[string]string{}
	}
	src, seen := a.hookStart[t.SessionID]
	a.hookStart[t.SessionID] = ""
	switch {
	case src != "":
		return src
	case t.Number == 1:
		return startStartup
	case !seen:
		return startResume
	}
	return ""
}

// markStart records what the next turn of session starts from (a
// compaction, /new).
func (a *Agent) markStart(session, source string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hookStart == nil {
		a.hookStart = map[string]string{}
	}
	a.hookStart[session] = source
}

// SessionCleared records that session was started by /new from another
// one (session.Service calls it): its first prompt's SessionStart hooks
// get the source "clear", as Claude Code's /clear does.
func (a *Agent) SessionCleared(session string) { a.markStart(session, startClear) }

// preCompact runs the PreCompact hooks of hooks (a turn's, or the
// session's for /compact) and emits their runs.
func preCompact(ctx context.Context, hooks any, session, trigger, instructions string, emit func(context.Context, event.Payload) error) {
	h, ok := hooks.(compactHooks)
	if !ok || emit == nil {
		return
	}
	for _, run := range h.Compacting(ctx, session, trigger, instructions) {
		_ = emit(context.WithoutCancel(ctx), run)
	}
}
