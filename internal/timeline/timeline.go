// Package timeline turns a session's events into the structure a frontend
// renders: user prompts, and for each turn one assistant message holding
// its text, thinking, tool groups (with approvals and nested sub-agent
// groups), changed files and final summary (seed critical rule #3).
//
// Every frontend builds its view with this package, from live events or
// from stored ones, so the two cannot differ (seed critical rule #1). The
// durable events alone produce the same timeline as the full live stream:
// ephemeral deltas only fill in blocks that a durable event later sets.
package timeline

import "github.com/olly-agent/olly/internal/event"

// Timeline is a session as rendered.
type Timeline struct {
	Title string  `json:"title,omitempty"`
	Items []*Item `json:"items"`
	// Todos is the agent's current todo list: the last todo_list event's
	// (nil when it kept none).
	Todos []event.Todo `json:"todos,omitempty"`
}

// Item kinds.
const (
	KindUser      = "user"
	KindAssistant = "assistant"
)

// Item is one entry of the timeline: a user prompt or the assistant message
// answering it.
type Item struct {
	Kind string `json:"kind"`
	Turn int    `json:"turn"`
	// Seq is the event that created the item (user messages: branch points).
	Seq int64 `json:"seq,omitempty"`

	// User prompts.
	Text        string             `json:"text,omitempty"`
	Attachments []event.Attachment `json:"attachments,omitempty"`

	// Assistant messages.
	Mode  event.Mode `json:"mode,omitempty"`
	Model string     `json:"model,omitempty"`
	// Dispatch is how an agent-mode prompt was classified: why the turn
	// runs in Mode.
	Dispatch *event.Dispatch `json:"dispatch,omitempty"`
	Blocks   []*Block        `json:"blocks,omitempty"`
	// Status is "running" until the turn finishes, then the finish status.
	Status     string            `json:"status,omitempty"`
	Error      string            `json:"error,omitempty"`
	TokenUsage *event.TokenUsage `json:"tokenUsage,omitempty"`
	// Live is the transient spinner line (only while running).
	Live string `json:"live,omitempty"`
	// Retry is the line of a model request being retried ("retrying in
	// 2s (attempt 1/3): reason"), from model_retry until the turn's next
	// output: only ever in a live timeline (retry.go).
	Retry string `json:"retry,omitempty"`
}

// Block kinds.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockGroup    = "group"
	BlockFiles    = "files"
	BlockFinal    = "final"
	BlockNotice   = "notice"
	BlockTodos    = "todos"
)

// LevelSteering is the level of a notice that holds a message the person
// sent into the running turn (steer), at the point the turn read it.
const LevelSteering = "steering"

// Block is one part of an assistant message.
type Block struct {
	Kind      string `json:"kind"`
	Iteration int    `json:"iteration,omitempty"`

	// Text blocks, thinking blocks, final summary, notices.
	Text       string `json:"text,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
	// Plan marks a final block that is a plan-mode plan: frontends offer
	// "Implement this plan" (session.Service.ImplementPlan).
	Plan bool `json:"plan,omitempty"`
	// Notice level: "error", "warning", "compaction", or LevelSteering.
	Level string `json:"level,omitempty"`

	// Groups.
	Group *Group `json:"group,omitempty"`

	// Changed files.
	Files *Files `json:"files,omitempty"`

	// The turn's todo list (todos.go), as last written in the turn.
	Todos []event.Todo `json:"todos,omitempty"`
}

// Group is a progress group: a batch of tool actions, or a sub-agent.
type Group struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Detail   string    `json:"detail,omitempty"`
	Subagent bool      `json:"subagent,omitempty"`
	Done     bool      `json:"done"`
	Actions  []*Action `json:"actions,omitempty"`
	// Children are nested groups (a sub-agent's groups), in order.
	Children []*Group `json:"children,omitempty"`
	// Thinking holds a sub-agent's reasoning, shown collapsed.
	Thinking []string `json:"thinking,omitempty"`
}

// Action is one tool call in a group.
type Action struct {
	event.ToolAction
	// LiveOutput is output streamed while running; replaced by Output.
	LiveOutput string    `json:"liveOutput,omitempty"`
	Approval   *Approval `json:"approval,omitempty"`
}

// Approval is an approval card attached to its action.
type Approval struct {
	event.ApprovalRequested
	// Decision is empty while pending.
	Decision     string `json:"decision,omitempty"`
	AutoApproved bool   `json:"autoApproved,omitempty"`
	// ApprovedCommand is the command as the person edited it.
	ApprovedCommand string `json:"approvedCommand,omitempty"`
	DenyReason      string `json:"denyReason,omitempty"`
	// OutsideSandbox is set when the person approved running the command
	// outside the sandbox.
	OutsideSandbox bool `json:"outsideSandbox,omitempty"`
}

// Files is the changed-files widget of one checkpoint.
type Files struct {
	CheckpointID string              `json:"checkpointId"`
	Status       string              `json:"status"`
	Files        []event.ChangedFile `json:"files"`
}

// Build builds the timeline of events, in order.
func Build(events []event.Event) *Timeline {
	b := NewBuilder()
	for _, ev := range events {
		b.Apply(ev)
	}
	return b.Timeline()
}
