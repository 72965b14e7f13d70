package hooks

import (
	"context"
	"encoding/json"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/trust"
)

// BeforeTool runs the PreToolUse hooks of call (tools.Hooks).
func (r *Runner) BeforeTool(ctx context.Context, env *tools.Env, call tools.Call) (bool, string) {
	if !r.Has(PreToolUse) {
		return false, ""
	}
	res := r.BeforeToolInput(ctx, env.Session, call.Name, call.Args)
	emitRuns(ctx, env, res.Runs)
	return res.Blocked, res.Reason
}

// AfterTool runs the PostToolUse hooks of a call that ran (tools.Hooks).
func (r *Runner) AfterTool(ctx context.Context, env *tools.Env, call tools.Call, out *tools.Result) string {
	if !r.Has(PostToolUse) {
		return ""
	}
	res := r.Run(context.WithoutCancel(ctx), PostToolUse, env.Session, call.Name, map[string]any{
		"tool_name":     ClaudeName(call.Name),
		"tool_input":    toolInput(call.Name, call.Args, r.workspace),
		"tool_response": map[string]any{"content": out.Content, "is_error": out.IsError},
	})
	emitRuns(ctx, env, res.Runs)
	note := res.Context
	if res.Blocked {
		// The tool already ran: a "block" after it is feedback for the model.
		note = joinNonEmpty(res.Reason, note)
	}
	return note
}

// PromptSubmitted runs the SessionStart hooks (when source, one of
// SourceStartup, SourceResume, SourceClear, SourceCompact, is set) and the
// UserPromptSubmit hooks for prompt, before anything of the turn is
// recorded: block is why the prompt must not run (shown to the person);
// context is added to the prompt the model reads; runs are the hook_run
// events to emit once the turn has started.
func (r *Runner) PromptSubmitted(ctx context.Context, session, source, prompt string) (block, extra string, runs []event.HookRun) {
	var contexts []string
	if source != "" && r.Has(SessionStart) {
		res := r.RunMatching(ctx, SessionStart, session, source, map[string]any{"source": source})
		runs = append(runs, res.Runs...)
		contexts = append(contexts, res.Context)
	}
	if r.Has(UserPromptSubmit) {
		res := r.Run(ctx, UserPromptSubmit, session, "", map[string]any{"prompt": prompt})
		runs = append(runs, res.Runs...)
		if res.Blocked {
			return res.Reason, "", runs
		}
		contexts = append(contexts, res.Context)
	}
	return "", joinNonEmpty(contexts...), runs
}

// Stopping runs the Stop hooks when the agent is about to finish; a
// non-empty reason means a hook blocked the stop and the agent continues
// with the reason. active says the turn already continued because of a
// Stop hook (Claude Code's stop_hook_active: a hook can let it go).
func (r *Runner) Stopping(ctx context.Context, session string, active bool) (reason string, runs []event.HookRun) {
	if !r.Has(Stop) {
		return "", nil
	}
	res := r.Run(ctx, Stop, session, "", map[string]any{"stop_hook_active": active})
	if res.Blocked {
		return res.Reason, res.Runs
	}
	return "", res.Runs
}

// Compacting runs the PreCompact hooks before the conversation is
// compacted: trigger is TriggerManual (/compact, with the person's
// instructions) or TriggerAuto. They cannot stop the compaction (Claude
// Code's contract); their runs are returned to be emitted.
func (r *Runner) Compacting(ctx context.Context, session, trigger, instructions string) []event.HookRun {
	if !r.Has(PreCompact) {
		return nil
	}
	return r.RunMatching(ctx, PreCompact, session, trigger, map[string]any{"trigger": trigger, "custom_instructions": instructions}).Runs
}

// SubagentStopping runs the SubagentStop hooks when a sub-agent is about
// to finish; a non-empty reason means a hook blocked it and the sub-agent
// continues with the reason (as Stopping does for the turn).
func (r *Runner) SubagentStopping(ctx context.Context, session string, active bool) (reason string, runs []event.HookRun) {
	if !r.Has(SubagentStop) {
		return "", nil
	}
	res := r.Run(ctx, SubagentStop, session, "", map[string]any{"stop_hook_active": active})
	if res.Blocked {
		return res.Reason, res.Runs
	}
	return "", res.Runs
}

func emitRuns(ctx context.Context, env *tools.Env, runs []event.HookRun) {
	if env.Emit == nil {
		return
	}
	for _, run := range runs {
		_ = env.Emit(context.WithoutCancel(ctx), run)
	}
}

func joinNonEmpty(parts ...string) string {
	out := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += p
	}
	return out
}

// BeforeToolInput runs the PreToolUse hooks of a call of tool with args,
// returning the whole result (`olly hooks test`, tests).
func (r *Runner) BeforeToolInput(ctx context.Context, session, tool string, args json.RawMessage) Result {
	return r.Run(ctx, PreToolUse, session, tool, map[string]any{
		"tool_name":  ClaudeName(tool),
		"tool_input": toolInput(tool, args, r.workspace),
	})
}

// TrustFile records that a person trusts f's hooks, as they are now, in
// workspace.
func TrustFile(s *trust.Store, workspace string, f File) error {
	return s.Trust(workspace, trust.KindHook, f.Source, f.Fingerprint())
}

// RevokeFile forgets the trust of f's hooks in workspace.
func RevokeFile(s *trust.Store, workspace string, f File) error {
	return s.Revoke(workspace, trust.KindHook, f.Source)
}
