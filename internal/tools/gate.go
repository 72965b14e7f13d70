package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
)

// Gated is implemented by tools whose calls may need the person's approval
// (commands, sensitive edits, paths outside the workspace). Execute calls
// Prepare instead of Run, asks for the approval Prepare describes, and
// only then runs the call, so every such tool shows the seed's event order
// (critical rule #1): tool_action pending → approval_requested →
// approval_resolved → tool_action running → tool_action success | error.
type Gated interface {
	Tool
	// Prepare checks the call and says what needs approving. It must not
	// change anything: the person may still say no.
	Prepare(ctx context.Context, env *Env, args Args) (*Prepared, error)
}

// Prepared is a checked call, ready to run.
type Prepared struct {
	// Display is the action's look while pending and running ("Run
	// `make`", "Write .env"); Execute fills the ids and the status.
	Display event.ToolAction
	// Done ends the call here, without running it: arguments the tool
	// cannot use, or nothing to do.
	Done *Result
	// Approval is what the person must approve first; nil runs at once.
	// Execute fills its Session and ActionID.
	Approval *approval.Request
	// Run performs the call. d is the answer to Approval (the zero
	// Decision when none was needed); an approved command may have been
	// edited (d.Command).
	Run func(ctx context.Context, env *Env, d approval.Decision) (*Result, error)
}

// runGated is Execute's path for a Gated tool.
func (r *Registry) runGated(ctx context.Context, env *Env, call Call, g Gated, args Args) *Result {
	p, err := g.Prepare(ctx, env, args)
	if err != nil || p == nil {
		return settle(ctx, call, nil, err)
	}
	look := p.Display
	if look.Text == "" {
		look.Text = call.Name
	}
	if p.Done != nil {
		return withLook(p.Done, look)
	}
	var d approval.Decision
	if p.Approval != nil {
		pending := look
		pending.Status = event.ActionPending
		if err := env.Report.Update(ctx, pending); err != nil {
			return recordFailure(call, err)
		}
		req := *p.Approval
		req.Session, req.ActionID = env.Session, call.ActionID
		d, err = ask(ctx, env, req)
		if err != nil {
			res := &Result{IsError: true, Content: fmt.Sprintf("%s was not run: the approval could not be recorded (%v).", call.Name, err)}
			return withLook(res, look)
		}
		if !d.Approved() {
			return withLook(refusal(call.Name, req, d), look)
		}
	}
	running := look
	running.Status = event.ActionRunning
	if err := env.Report.Update(ctx, running); err != nil {
		return recordFailure(call, err)
	}
	res, err := p.Run(ctx, env, d)
	return withLook(settle(ctx, call, res, err), look)
}

// ask settles req through the approver; without one nobody can approve.
func ask(ctx context.Context, env *Env, req approval.Request) (approval.Decision, error) {
	if env.Approver == nil {
		return approval.Decision{Outcome: event.DecisionDenied, Auto: true,
			Reason: "this olly session has no way to ask for approval"}, nil
	}
	return env.Approver.Request(ctx, env.Emit, req)
}

// refusal is the result of a call the person did not approve. The model is
// told plainly not to try the same thing again: models otherwise retry a
// denied command in a loop.
func refusal(tool string, req approval.Request, d approval.Decision) *Result {
	if d.Outcome == event.DecisionCanceled {
		return &Result{IsError: true, Content: fmt.Sprintf("%s was canceled before it ran.", tool),
			Display: event.ToolAction{Detail: "canceled"}}
	}
	var b strings.Builder
	who := "The person declined"
	if d.Auto {
		who = "olly did not allow"
	}
	switch req.Kind {
	case event.ApprovalCommand:
		fmt.Fprintf(&b, "%s to run this command: %s", who, req.Command)
	case event.ApprovalFileEdit:
		fmt.Fprintf(&b, "%s the edit of %s; the file was not changed", who, req.FilePath)
	case event.ApprovalTool:
		fmt.Fprintf(&b, "%s this call of %s; it was not made", who, req.Tool)
	default:
		fmt.Fprintf(&b, "%s access to %s, outside the workspace", who, req.FilePath)
	}
	if d.Reason != "" {
		if d.Auto {
			fmt.Fprintf(&b, " (%s)", d.Reason)
		} else {
			fmt.Fprintf(&b, ". They said: %s", d.Reason)
		}
	}
	b.WriteString(". Do not retry the same ")
	switch req.Kind {
	case event.ApprovalCommand:
		b.WriteString("command")
	case event.ApprovalFileEdit:
		b.WriteString("edit")
	case event.ApprovalTool:
		b.WriteString("call")
	default:
		b.WriteString("path")
	}
	b.WriteString("; take another approach or ask the person what they want.")
	detail := "denied"
	if d.Auto {
		detail = "not allowed"
	}
	return &Result{Denied: true, Content: b.String(), Display: event.ToolAction{Detail: detail}}
}

// withLook fills the parts of res's display the tool left empty from the
// pending/running look, so the final state reads like the action it ends.
func withLook(res *Result, look event.ToolAction) *Result {
	d := &res.Display
	if d.Text == "" {
		d.Text = look.Text
		if d.Detail == "" {
			d.Detail = look.Detail
		}
	}
	if d.FilePath == "" {
		d.FilePath, d.StartLine = look.FilePath, look.StartLine
	}
	if d.Icon == "" {
		d.Icon = look.Icon
	}
	return res
}

// runPrepared runs a gated tool outside Execute (a direct Run call): it may
// do only what needs no approval, since nobody is asked here.
func runPrepared(ctx context.Context, env *Env, p *Prepared, err error) (*Result, error) {
	if err != nil || p == nil {
		return nil, err
	}
	if p.Done != nil {
		return p.Done, nil
	}
	if p.Approval != nil {
		return &Result{Denied: true, Content: "This call needs the person's approval, which only Registry.Execute can ask for; it was not run."}, nil
	}
	return p.Run(ctx, env, approval.Decision{})
}
