package tools

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// Hooks runs the person's hooks around tool calls: *hooks.Runner.
type Hooks interface {
	// BeforeTool runs the PreToolUse hooks of call; blocked stops the
	// call, and reason goes to the model.
	BeforeTool(ctx context.Context, env *Env, call Call) (blocked bool, reason string)
	// AfterTool runs the PostToolUse hooks of a call that ran; the note
	// (a hook's block reason or additional context) is appended to the
	// result the model reads.
	AfterTool(ctx context.Context, env *Env, call Call, res *Result) (note string)
}

// beforeTool runs the PreToolUse hooks; a block becomes the call's result,
// an error the model reads and the person sees as a refused action.
func beforeTool(ctx context.Context, env *Env, call Call) *Result {
	if env.Hooks == nil {
		return nil
	}
	blocked, reason := env.Hooks.BeforeTool(ctx, env, call)
	if !blocked {
		return nil
	}
	return &Result{IsError: true, Denied: true,
		Content: fmt.Sprintf("A PreToolUse hook blocked this %s call, so it was not run. The hook said:\n%s\nDo not retry the same call; change your approach or ask the person.", call.Name, reason),
		Display: event.ToolAction{Text: call.Name, Detail: "blocked by a hook: " + reason}}
}

// afterTool runs the PostToolUse hooks of a call that ran (not one the
// person refused) and appends what they said to its result.
func afterTool(ctx context.Context, env *Env, call Call, res *Result) {
	if env.Hooks == nil || res == nil || res.Denied {
		return
	}
	if note := env.Hooks.AfterTool(ctx, env, call, res); note != "" {
		res.Content += "\n\n[PostToolUse hook]\n" + note
	}
}
