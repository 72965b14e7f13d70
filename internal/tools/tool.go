// Package tools holds the agent's tools behind one registry, and the single
// path through which a tool call runs: Execute emits the call's action
// events (pending, approval, running, success or error) in the seed's order,
// so every tool is shown the same way and nothing is shown twice.
//
// Each tool lives in its own file. Errors the model can fix (no such file,
// no match) are results with IsError set, not Go errors: Go errors are for
// olly's own failures.
package tools

import (
	"context"
	"encoding/json"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/workspace"
)

// Tool is one function the model can call.
type Tool interface {
	// Spec is the tool's name, description and JSON Schema, as sent to the
	// model.
	Spec() llm.Tool
	// Run performs the call. It reports progress through env.Report and
	// returns the result for the model and for display.
	Run(ctx context.Context, env *Env, args Args) (*Result, error)
}

// Result is what a tool returns.
type Result struct {
	// Content is the text the model receives.
	Content string
	// IsError marks a failure the model can act on (bad path, no match,
	// non-zero exit is not one: that is a normal result).
	IsError bool
	// Denied is set when the person refused the action; the model is told
	// not to retry it.
	Denied bool
	// Display is the action's final appearance. Execute fills GroupID,
	// ActionID, Tool and Status; the tool fills the rest (Text, Detail,
	// FilePath, StartLine, Listing, Output, Additions, Deletions,
	// CheckpointID).
	Display event.ToolAction
	// Wrote lists the workspace-relative paths the call changed.
	Wrote []string
}

// Call is one tool call to execute.
type Call struct {
	// ID is the model's call id (or one olly assigned).
	ID   string
	Name string
	Args json.RawMessage
	// GroupID and ActionID place the call's events in the timeline.
	GroupID  string
	ActionID string
}

// Outcome is an executed call: its result, already shown to the person.
type Outcome struct {
	Call   Call
	Result *Result
}

// Env is what a tool may use. Fields a frontend or issue has not provided
// yet are nil; tools must cope (and say so to the model) rather than panic.
type Env struct {
	Session   string
	Turn      int
	Workspace *workspace.Workspace
	// Emit publishes an event of this session and turn (through the
	// session service, so durable events are stored first).
	Emit func(ctx context.Context, p event.Payload) error
	// Report is bound to the current call's action; Execute sets it.
	Report *Reporter
}
