package rpcclient

import (
	"context"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/ui/rpc"
)

// The protocol's types, as the server defines them (docs/rpc.md).
type (
	Ready               = rpc.Ready
	Response            = rpc.Response
	Empty               = rpc.Empty
	PromptRequest       = rpc.PromptRequest
	MessageRequest      = rpc.MessageRequest
	PromptResult        = rpc.PromptResult
	AbortResult         = rpc.AbortResult
	NewSessionRequest   = rpc.NewSessionRequest
	SwitchRequest       = rpc.SwitchRequest
	SwitchResult        = rpc.SwitchResult
	State               = rpc.State
	PiModel             = rpc.PiModel
	SetModelRequest     = rpc.SetModelRequest
	ModelsResult        = rpc.ModelsResult
	CompactRequest      = rpc.CompactRequest
	CompactResult       = rpc.CompactResult
	EnabledRequest      = rpc.EnabledRequest
	BashRequest         = rpc.BashRequest
	BashResult          = rpc.BashResult
	SessionStats        = rpc.SessionStats
	ExportRequest       = rpc.ExportRequest
	PathResult          = rpc.PathResult
	BranchRequest       = rpc.BranchRequest
	BranchResult        = rpc.BranchResult
	BranchMessages      = rpc.BranchMessages
	TextResult          = rpc.TextResult
	NameRequest         = rpc.NameRequest
	NameResult          = rpc.NameResult
	MessagesResult      = rpc.MessagesResult
	PiMessage           = rpc.PiMessage
	ApproveRequest      = rpc.ApproveRequest
	DenyRequest         = rpc.DenyRequest
	ApprovalResult      = rpc.ApprovalResult
	AutoApproveRequest  = rpc.AutoApproveRequest
	AutoApprove         = rpc.AutoApprove
	Changes             = rpc.Changes
	ChangeRequest       = rpc.ChangeRequest
	ChangeResult        = rpc.ChangeResult
	NavigateRequest     = rpc.NavigateRequest
	Review              = rpc.Review
	ListSessionsRequest = rpc.ListSessionsRequest
	SessionsResult      = rpc.SessionsResult
	SearchRequest       = rpc.SearchRequest
	EventsRequest       = rpc.EventsRequest
	EventsResult        = rpc.EventsResult
	ModeRequest         = rpc.ModeRequest
	ModeResult          = rpc.ModeResult
	CommandsResult      = rpc.CommandsResult
	SearchResult        = store.SearchResult
	Event               = event.Event
)

// do calls command and returns its decoded result.
func do[Resp any](ctx context.Context, c *Client, command string, req any) (*Resp, error) {
	var out Resp
	if err := c.Call(ctx, command, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Prompt sends a prompt; its events follow on Events.
func (c *Client) Prompt(ctx context.Context, req PromptRequest) (*PromptResult, error) {
	return do[PromptResult](ctx, c, "prompt", req)
}

// Steer queues a message for the running turn.
func (c *Client) Steer(ctx context.Context, message string) (*PromptResult, error) {
	return do[PromptResult](ctx, c, "steer", MessageRequest{Message: message})
}

// FollowUp queues a message to run as the next turn.
func (c *Client) FollowUp(ctx context.Context, message string) (*PromptResult, error) {
	return do[PromptResult](ctx, c, "follow_up", MessageRequest{Message: message})
}

// Abort stops the running turn and drops queued messages.
func (c *Client) Abort(ctx context.Context) (*AbortResult, error) {
	return do[AbortResult](ctx, c, "abort", nil)
}

// NewSession starts a new session and switches to it.
func (c *Client) NewSession(ctx context.Context, req NewSessionRequest) (*SwitchResult, error) {
	return do[SwitchResult](ctx, c, "new_session", req)
}

// SwitchSession switches to a stored session.
func (c *Client) SwitchSession(ctx context.Context, sessionID string) (*SwitchResult, error) {
	return do[SwitchResult](ctx, c, "switch_session", SwitchRequest{SessionID: sessionID})
}

// GetState returns the session's state.
func (c *Client) GetState(ctx context.Context) (*State, error) {
	return do[State](ctx, c, "get_state", nil)
}

// SetModel uses another model for the session.
func (c *Client) SetModel(ctx context.Context, model string) (*PiModel, error) {
	return do[PiModel](ctx, c, "set_model", SetModelRequest{ModelID: model})
}

// GetAvailableModels lists the server's models.
func (c *Client) GetAvailableModels(ctx context.Context) (*ModelsResult, error) {
	return do[ModelsResult](ctx, c, "get_available_models", nil)
}

// Compact summarizes the conversation; it waits as long as that takes
// (ctx bounds it).
func (c *Client) Compact(ctx context.Context, instructions string) (*CompactResult, error) {
	var out CompactResult
	if err := c.call(ctx, "compact", CompactRequest{CustomInstructions: instructions}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetAutoCompaction turns automatic compaction on or off.
func (c *Client) SetAutoCompaction(ctx context.Context, on bool) error {
	return c.Call(ctx, "set_auto_compaction", EnabledRequest{Enabled: &on}, nil)
}

// Bash runs a command in the session's shell; it waits as long as the
// command runs (ctx bounds it; AbortBash stops it).
func (c *Client) Bash(ctx context.Context, command string) (*BashResult, error) {
	var out BashResult
	if err := c.call(ctx, "bash", BashRequest{Command: command}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AbortBash stops the running bash command.
func (c *Client) AbortBash(ctx context.Context) (*AbortResult, error) {
	return do[AbortResult](ctx, c, "abort_bash", nil)
}

// GetSessionStats returns the session's counts.
func (c *Client) GetSessionStats(ctx context.Context) (*SessionStats, error) {
	return do[SessionStats](ctx, c, "get_session_stats", nil)
}

// ExportHTML writes the session as an HTML page ("" path: the default).
func (c *Client) ExportHTML(ctx context.Context, path string) (*PathResult, error) {
	return do[PathResult](ctx, c, "export_html", ExportRequest{OutputPath: path})
}

// Branch goes back to the prompt at seq.
func (c *Client) Branch(ctx context.Context, seq int64) (*BranchResult, error) {
	return do[BranchResult](ctx, c, "branch", BranchRequest{Seq: seq})
}

// GetBranchMessages lists the prompts of the current branch.
func (c *Client) GetBranchMessages(ctx context.Context) (*BranchMessages, error) {
	return do[BranchMessages](ctx, c, "get_branch_messages", nil)
}

// GetLastAssistantText returns the agent's last answer (nil: none yet).
func (c *Client) GetLastAssistantText(ctx context.Context) (*string, error) {
	out, err := do[TextResult](ctx, c, "get_last_assistant_text", nil)
	if err != nil {
		return nil, err
	}
	return out.Text, nil
}

// SetSessionName renames the session.
func (c *Client) SetSessionName(ctx context.Context, name string) (*NameResult, error) {
	return do[NameResult](ctx, c, "set_session_name", NameRequest{Name: name})
}

// GetMessages returns the conversation as pi messages.
func (c *Client) GetMessages(ctx context.Context) (*MessagesResult, error) {
	return do[MessagesResult](ctx, c, "get_messages", nil)
}

// Approve approves a pending request; command, when not empty, runs
// instead of the requested command.
func (c *Client) Approve(ctx context.Context, approvalID, command string) (*ApprovalResult, error) {
	return do[ApprovalResult](ctx, c, "approve", ApproveRequest{ApprovalID: approvalID, Command: command})
}

// Deny denies a pending request, with a reason for the agent.
func (c *Client) Deny(ctx context.Context, approvalID, reason string) (*ApprovalResult, error) {
	return do[ApprovalResult](ctx, c, "deny", DenyRequest{ApprovalID: approvalID, Reason: reason})
}

// SetAutoApprove changes the session's toggles (nil: unchanged).
func (c *Client) SetAutoApprove(ctx context.Context, commands, sensitiveEdits *bool) (*AutoApprove, error) {
	return do[AutoApprove](ctx, c, "set_auto_approve", AutoApproveRequest{Commands: commands, SensitiveEdits: sensitiveEdits})
}

// ListChanges returns the changes not yet kept or undone.
func (c *Client) ListChanges(ctx context.Context) (*Changes, error) {
	return do[Changes](ctx, c, "list_changes", nil)
}

// Keep keeps changes (a hunk, a file, or all).
func (c *Client) Keep(ctx context.Context, req ChangeRequest) (*ChangeResult, error) {
	return do[ChangeResult](ctx, c, "keep", req)
}

// Undo undoes changes (a hunk, a file, or all).
func (c *Client) Undo(ctx context.Context, req ChangeRequest) (*ChangeResult, error) {
	return do[ChangeResult](ctx, c, "undo", req)
}

// ReviewNavigate moves through the pending changes.
func (c *Client) ReviewNavigate(ctx context.Context, move, path string) (*Review, error) {
	return do[Review](ctx, c, "review_navigate", NavigateRequest{Move: move, Path: path})
}

// ListSessions lists stored sessions.
func (c *Client) ListSessions(ctx context.Context, req ListSessionsRequest) (*SessionsResult, error) {
	return do[SessionsResult](ctx, c, "list_sessions", req)
}

// SearchSessions searches every session.
func (c *Client) SearchSessions(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	return do[SearchResult](ctx, c, "search_sessions", req)
}

// GetEvents returns stored events after a seq.
func (c *Client) GetEvents(ctx context.Context, req EventsRequest) (*EventsResult, error) {
	return do[EventsResult](ctx, c, "get_events", req)
}

// SetMode changes the session's mode.
func (c *Client) SetMode(ctx context.Context, mode string) (*ModeResult, error) {
	return do[ModeResult](ctx, c, "set_mode", ModeRequest{Mode: mode})
}

// GetCommands lists the slash commands.
func (c *Client) GetCommands(ctx context.Context) (*CommandsResult, error) {
	return do[CommandsResult](ctx, c, "get_commands", nil)
}
