package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/workspace"
)

// PromptInput is one prompt of the person.
type PromptInput struct {
	// Text is the prompt as typed; @path and @path:L10-L50 in it attach
	// files (resolved by the runner).
	Text string
	// Mode overrides the session's mode for this turn ("agent" when both
	// are empty).
	Mode event.Mode
	// Model overrides the session's model for this turn.
	Model string
	// Images are attached to the prompt besides its @image mentions (RPC
	// image content): MimeType and Data set (NewImageRef).
	Images []event.ImageRef
	// FromPlan is the turn whose plan this prompt implements
	// (ImplementPlan sets it): the runner does not classify the prompt,
	// since the plan already decided what to do.
	FromPlan int

	// recorded: the prompt is in the prompt history already (a steering
	// message, recorded when it was sent, that runs as the next turn).
	recorded bool
	// implement: the turn implements the plan of turn FromPlan (0: the
	// latest); withTurn reads it from the history (ImplementPlan).
	implement bool
}

// TurnResult is how a turn ended.
type TurnResult struct {
	Turn int
	// Status is one of event.FinishDone, FinishFailed, FinishCanceled,
	// FinishMaxIterations.
	Status     string
	Iterations int
	// FinalText is the final_message text ("" when the turn emitted none).
	FinalText string
	// Error describes the failure when Status is failed.
	Error string
	// FilesChanged are the workspace-relative paths the turn wrote.
	FilesChanged []string
	// Command names the slash command the prompt was ("compact", "new"),
	// when it was one that is not a turn of the agent.
	Command string
	// SessionID is set when the prompt switched sessions (/new): the new
	// session's id, which the frontend continues with.
	SessionID string
	// Shell is the outcome of a command the person ran (RunCommand); nil
	// for prompts.
	Shell *CommandOutcome
	// Memory is the runner's session memory after the turn (JSON); the
	// service stores it on the session row (session_memory) and hands it
	// back as Turn.Memory next turn. Nil leaves the stored memory as it is.
	Memory json.RawMessage
}

// Runner runs one turn: the agent. It emits every event of the turn through
// t.Emit, from turn_started to turn_finished, and returns how the turn
// ended. An error means the turn could not run at all (a prompt it refuses,
// an event that could not be stored); a turn that failed while running (the
// model server broke off) returns a TurnResult with Status failed and a nil
// error.
type Runner interface {
	RunTurn(ctx context.Context, t *Turn) (*TurnResult, error)
}

// EmitFunc publishes one event of a turn and returns it as published (with
// Seq when durable).
type EmitFunc func(ctx context.Context, p event.Payload) (event.Event, error)

// Turn is one prompt being answered, as the service hands it to the Runner.
type Turn struct {
	SessionID string
	// Number is the turn's number in the session (1 for the first prompt).
	Number int
	// Workspace is the session's workspace (roots and allowed
	// directories).
	Workspace *workspace.Workspace
	// Mode and Model are the resolved mode and model ("" model: the
	// runner's default).
	Mode  event.Mode
	Model string
	// ExplorerModel is the session's own model for sub-agents ("": the
	// runner's setting, then Model).
	ExplorerModel string
	Input         PromptInput
	// History is the conversation of the session's branch so far. Emit
	// applies each event of the turn to it, so it always holds what has
	// been stored.
	History *Conversation
	// Memory is the session memory stored on the session row
	// (session_memory), as the runner last returned it in
	// TurnResult.Memory; nil for a new session. The runner validates it.
	Memory json.RawMessage

	emit EmitFunc
	// sync waits until what emit queued is durable (Sync); nil: emit
	// returns only once its event is published.
	sync func(ctx context.Context) error
	// steering pops the session's queued steering messages (queue.go);
	// nil for turns outside the service.
	steering func() []PromptInput
	// interrupts reports a steering message that stops the running
	// response's calls (queuemodes.go).
	interrupts func() bool
	// started is set once the turn emitted anything (service turns).
	started atomic.Bool
}

// NewTurn builds a turn outside the service: for sub-agents, whose
// conversation lives only in memory, and for tests and benchmarks. emit
// publishes; the turn applies what it returns to history (nil: a new
// conversation).
func NewTurn(sessionID string, number int, ws *workspace.Workspace, in PromptInput, history *Conversation, emit EmitFunc) *Turn {
	if history == nil {
		history = NewConversation()
	}
	return &Turn{SessionID: sessionID, Number: number, Workspace: ws, Mode: in.Mode, Model: in.Model,
		Input: in, History: history, emit: emit}
}

// Sync waits until every event the turn emitted so far is stored (and
// published), and reports an event that could not be: the agent calls it
// before it runs a tool, so that the call is in the log before it has
// any effect. The service's Emit queues durable events for a group commit
// and returns at once; without Sync they are stored within the store's
// commit delay (a few milliseconds), unacknowledged until then.
func (t *Turn) Sync(ctx context.Context) error {
	if t.sync == nil {
		return nil
	}
	return t.sync(ctx)
}

// Emit publishes an event of the turn (stored first when durable) and
// applies it to History.
func (t *Turn) Emit(ctx context.Context, p event.Payload) (event.Event, error) {
	if t.emit == nil {
		return event.Event{}, errors.New("turn has no emitter: build turns with NewTurn or the service")
	}
	ev, err := t.emit(ctx, p)
	if err != nil {
		return ev, err
	}
	t.History.Apply(ev)
	return ev, nil
}
