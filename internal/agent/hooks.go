package agent

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// maxStopBlocks bounds how often Stop hooks may keep one turn going: a hook
// that always blocks must not spend the whole iteration budget (Claude
// Code leaves it to the hook, through stop_hook_active; olly also stops).
const maxStopBlocks = 3

// turnHooks are the hooks around a person's turn (*hooks.Runner, reached
// through the tool environment's Hooks); sub-agents' turns run none.
type turnHooks interface {
	PromptSubmitted(ctx context.Context, session, source, prompt string) (block, extra string, runs []event.HookRun)
	Stopping(ctx context.Context, session string, active bool) (reason string, runs []event.HookRun)
	// Notices say which project hooks do not run because nobody trusted
	// them; each is shown once per session.
	Notices() []string
}

// hookState is what a turn's hooks left behind.
type hookState struct {
	runs   []event.HookRun // prompt hooks' runs, emitted once the turn started
	blocks int             // Stop hooks that kept the turn going
}

// promptHooks runs the SessionStart (startSource) and UserPromptSubmit
// hooks before anything of the turn is recorded: a block refuses the
// prompt, with the hook's reason, and leaves no trace but the error the
// person sees; context the hooks add goes into the prompt the model reads
// (stored with the user message, so history reads the same).
func (r *run) promptHooks(ctx context.Context) error {
	h, ok := r.env.Hooks.(turnHooks)
	if !ok || r.depth > 0 {
		return nil
	}
	block, extra, runs := h.PromptSubmitted(ctx, r.t.SessionID, r.a.startSource(r.t), r.t.Input.Text)
	r.hooks.runs = runs
	if block != "" {
		return fmt.Errorf("a UserPromptSubmit hook blocked the prompt: %s", block)
	}
	if extra != "" {
		base := r.user.Content
		if base == "" {
			base = r.user.Text
		}
		r.user.Content = base + "\n\n<hook_context>\n" + extra + "\n</hook_context>"
	}
	return nil
}

// emitPromptHookRuns shows the prompt hooks' runs after the user message,
// and, once per session, which project hooks do not run for want of trust.
func (r *run) emitPromptHookRuns(ctx context.Context) {
	for _, run := range r.hooks.runs {
		_ = r.emit(ctx, run)
	}
	r.hooks.runs = nil
	h, ok := r.env.Hooks.(turnHooks)
	if !ok || r.depth > 0 {
		return
	}
	for _, n := range h.Notices() {
		key := r.t.SessionID + "\x00hooks\x00" + n
		r.a.mu.Lock()
		seen := r.a.warned[key]
		r.a.warned[key] = true
		r.a.mu.Unlock()
		if !seen {
			_ = r.emit(ctx, event.Warning{Code: event.WarningHooksUntrusted, Message: n})
		}
	}
}

// stopHooks runs the Stop hooks when the turn is about to finish; a hook
// that blocks turns the verdict into a continuation carrying its reason.
func (r *run) stopHooks(ctx context.Context, v *verdict) {
	if !v.done || ctx.Err() != nil || r.hooks.blocks >= maxStopBlocks || r.iter >= r.cfg.MaxIterations {
		return
	}
	var reason string
	var runs []event.HookRun
	if r.depth > 0 {
		// A sub-agent's end runs the SubagentStop hooks (hooks_events.go).
		h, ok := r.env.Hooks.(subagentHooks)
		if !ok {
			return
		}
		reason, runs = h.SubagentStopping(ctx, r.t.SessionID, r.hooks.blocks > 0)
	} else {
		h, ok := r.env.Hooks.(turnHooks)
		if !ok {
			return
		}
		reason, runs = h.Stopping(ctx, r.t.SessionID, r.hooks.blocks > 0)
	}
	for _, run := range runs {
		_ = r.emit(ctx, run)
	}
	if reason == "" {
		return
	}
	r.hooks.blocks++
	which := "A Stop hook"
	if r.depth > 0 {
		which = "A SubagentStop hook"
	}
	*v = continueWith(stateNeedTools, which+" did not let you finish yet. It said: "+reason)
}
