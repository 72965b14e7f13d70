package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
)

// Reporter lets a running tool update its action line, add further lines
// to its group (read_file shows one per 100-line chunk) and stream output.
// A nil *Reporter (a tool run outside Execute) shows nothing.
type Reporter struct {
	emit func(ctx context.Context, p event.Payload) error
	base event.ToolAction
}

// Update emits the action's new state; ids and tool name are filled in.
func (r *Reporter) Update(ctx context.Context, a event.ToolAction) error {
	if r == nil {
		return nil
	}
	a.GroupID, a.ActionID, a.Tool = r.base.GroupID, r.base.ActionID, r.base.Tool
	return r.send(ctx, a)
}

// Extra emits another action in the same group, identified by suffix.
func (r *Reporter) Extra(ctx context.Context, suffix string, a event.ToolAction) error {
	if r == nil {
		return nil
	}
	a.GroupID, a.ActionID, a.Tool = r.base.GroupID, r.base.ActionID+":"+suffix, r.base.Tool
	return r.send(ctx, a)
}

// Output streams live output of the action (ephemeral).
func (r *Reporter) Output(ctx context.Context, text string) error {
	if r == nil || r.emit == nil {
		return nil
	}
	return r.emit(ctx, event.ToolOutput{ActionID: r.base.ActionID, Text: text})
}

func (r *Reporter) send(ctx context.Context, a event.ToolAction) error {
	if r == nil || r.emit == nil {
		return nil
	}
	return r.emit(ctx, a)
}

// Execute runs one call and shows it. A call that needs approval (a Gated
// tool) goes pending → approval_requested → approval_resolved → running →
// success or error; any other call goes running → success or error. Unknown
// tools and malformed arguments become results the model can act on.
func (r *Registry) Execute(ctx context.Context, env *Env, call Call) Outcome {
	rep := &Reporter{emit: env.Emit, base: event.ToolAction{GroupID: call.GroupID, ActionID: call.ActionID, Tool: call.Name}}
	res := r.run(ctx, env, rep, call)
	final := res.Display
	final.Status = event.ActionSuccess
	if res.IsError || res.Denied {
		final.Status = event.ActionError
	}
	if final.Text == "" {
		final.Text = call.Name
	}
	// The final state is shown even when ctx is canceled: the person must
	// see how the action ended.
	_ = rep.Update(context.WithoutCancel(ctx), final)
	return Outcome{Call: call, Result: res}
}

func (r *Registry) run(ctx context.Context, env *Env, rep *Reporter, call Call) *Result {
	t, ok := r.Get(call.Name)
	if !ok {
		t, ok = extra(env.Extra, call.Name)
	}
	if !ok {
		return &Result{IsError: true,
			Content: fmt.Sprintf("Unknown tool %q. Available tools: %s.", call.Name, strings.Join(r.Sorted(), ", ")),
			Display: event.ToolAction{Text: "Unknown tool " + call.Name}}
	}
	args, err := ParseArgs(call.Args)
	if err != nil {
		return &Result{IsError: true,
			Content: fmt.Sprintf("Invalid arguments for %s: %v. Send a JSON object matching the tool's parameters.", call.Name, err),
			Display: event.ToolAction{Text: call.Name, Detail: "invalid arguments"}}
	}
	tenv := *env
	tenv.Report = rep
	// PreToolUse hooks run before the approval: a hook that blocks spares
	// the person a question about a call that will not run.
	if blocked := beforeTool(ctx, &tenv, call); blocked != nil {
		return blocked
	}
	res := r.runTool(ctx, &tenv, rep, call, t, args)
	afterTool(ctx, &tenv, call, res)
	return res
}

// runTool runs a known tool with parsed arguments: through its approval
// when it is Gated.
func (r *Registry) runTool(ctx context.Context, tenv *Env, rep *Reporter, call Call, t Tool, args Args) *Result {
	if g, ok := t.(Gated); ok {
		return r.runGated(ctx, tenv, call, g, args)
	}
	look := event.ToolAction{Status: event.ActionRunning, Text: call.Name}
	if d, ok := t.(Describer); ok {
		look = d.Describe(args)
		look.Status = event.ActionRunning
	}
	if err := rep.Update(ctx, look); err != nil {
		return recordFailure(call, err)
	}
	res, err := t.Run(ctx, tenv, args)
	return settle(ctx, call, res, err)
}

// extra finds the turn's run-time tool called name.
func extra(ts []Tool, name string) (Tool, bool) {
	for _, t := range ts {
		if t.Spec().Name == name {
			return t, true
		}
	}
	return nil, false
}

// settle turns what a tool returned into the call's result.
func settle(ctx context.Context, call Call, res *Result, err error) *Result {
	switch {
	case err != nil && ctx.Err() != nil:
		return &Result{IsError: true, Content: fmt.Sprintf("%s was canceled.", call.Name),
			Display: event.ToolAction{Detail: "canceled"}}
	case err != nil:
		return &Result{IsError: true, Content: fmt.Sprintf("%s failed inside olly: %v", call.Name, err),
			Display: event.ToolAction{Detail: err.Error()}}
	case res == nil:
		return &Result{IsError: true, Content: fmt.Sprintf("%s returned nothing.", call.Name)}
	}
	return res
}

func recordFailure(call Call, err error) *Result {
	return &Result{IsError: true, Content: "Could not record the action: " + err.Error(), Display: event.ToolAction{Text: call.Name}}
}
