package rpcclient

import (
	"context"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/rpcproto"
)

// The protocol's types, as the server defines them (docs/rpc.md).
type (
	Ready               = rpcproto.Ready
	Response            = rpcproto.Response
	Empty               = rpcproto.Empty
	PromptRequest       = rpcproto.PromptRequest
	MessageRequest      = rpcproto.MessageRequest
	PromptResult        = rpcproto.PromptResult
	AbortResult         = rpcproto.AbortResult
	NewSessionRequest   = rpcproto.NewSessionRequest
	SwitchRequest       = rpcproto.SwitchRequest
	SwitchResult        = rpcproto.SwitchResult
	State               = rpcproto.State
	PiModel             = rpcproto.PiModel
	SetModelRequest     = rpcproto.SetModelRequest
	ModelsResult        = rpcproto.ModelsResult
	CompactRequest      = rpcproto.CompactRequest
	CompactResult       = rpcproto.CompactResult
	EnabledRequest      = rpcproto.EnabledRequest
	BashRequest         = rpcproto.BashRequest
	BashResult          = rpcproto.BashResult
	SessionStats        = rpcproto.SessionStats
	ExportRequest       = rpcproto.ExportRequest
	PathResult          = rpcproto.PathResult
	BranchRequest       = rpcproto.BranchRequest
	BranchResult        = rpcproto.BranchResult
	BranchMessages      = rpcproto.BranchMessages
	TextResult          = rpcproto.TextResult
	NameRequest         = rpcproto.NameRequest
	NameResult          = rpcproto.NameResult
	MessagesResult      = rpcproto.MessagesResult
	PiMessage           = rpcproto.PiMessage
	ApproveRequest      = rpcproto.ApproveRequest
	DenyRequest         = rpcproto.DenyRequest
	ApprovalResult      = rpcproto.ApprovalResult
	AutoApproveRequest  = rpcproto.AutoApproveRequest
	AutoApprove         = rpcproto.AutoApprove
	Changes             = rpcproto.Changes
	ChangeRequest       = rpcproto.ChangeRequest
	ChangeResult        = rpcproto.ChangeResult
	NavigateRequest     = rpcproto.NavigateRequest
	Review              = rpcproto.Review
	ListSessionsRequest = rpcproto.ListSessionsRequest
	SessionsResult      = rpcproto.SessionsResult
	SearchRequest       = rpcproto.SearchRequest
	EventsRequest       = rpcproto.EventsRequest
	EventsResult        = rpcproto.EventsResult
	ModeRequest         = rpcproto.ModeRequest
	ModeResult          = rpcproto.ModeResult
	CommandsResult      = rpcproto.CommandsResult
	SearchResult        = rpcproto.SearchResult
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
	return do[PromptResult](ctx, c, rpcproto.CmdPrompt, req)
}

// Steer queues a message for the running turn.
func (c *Client) Steer(ctx context.Context, message string) (*PromptResult, error) {
	return do[PromptResult](ctx, c, rpcproto.CmdSteer, MessageRequest{Message: message})
}

// FollowUp queues a message to run as the next turn.
func (c *Client) FollowUp(ctx context.Context, message string) (*PromptResult, error) {
	return do[PromptResult](ctx, c, rpcproto.CmdFollowUp, MessageRequest{Message: message})
}

// Abort stops the running turn and drops queued messages.
func (c *Client) Abort(ctx context.Context) (*AbortResult, error) {
	return do[AbortResult](ctx, c, rpcproto.CmdAbort, nil)
}

// NewSession starts a new session and switches to it.
func (c *Client) NewSession(ctx context.Context, req NewSessionRequest) (*SwitchResult, error) {
	return do[SwitchResult](ctx, c, rpcproto.CmdNewSession, req)
}

// SwitchSession switches to a stored session.
func (c *Client) SwitchSession(ctx context.Context, sessionID string) (*SwitchResult, error) {
	return do[SwitchResult](ctx, c, rpcproto.CmdSwitchSession, SwitchRequest{SessionID: sessionID})
}

// GetState returns the session's state.
func (c *Client) GetState(ctx context.Context) (*State, error) {
	return do[State](ctx, c, rpcproto.CmdGetState, nil)
}

// SetModel uses another model for the session.
func (c *Client) SetModel(ctx context.Context, model string) (*PiModel, error) {
	return do[PiModel](ctx, c, rpcproto.CmdSetModel, SetModelRequest{ModelID: model})
}

// GetAvailableModels lists the server's models.
func (c *Client) GetAvailableModels(ctx context.Context) (*ModelsResult, error) {
	return do[ModelsResult](ctx, c, rpcproto.CmdGetAvailableModels, nil)
}

// Compact summarizes the conversation; it waits as long as that takes
// (ctx bounds it).
func (c *Client) Compact(ctx context.Context, instructions string) (*CompactResult, error) {
	var out CompactResult
	if err := c.call(ctx, rpcproto.CmdCompact, CompactRequest{CustomInstructions: instructions}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetAutoCompaction turns automatic compaction on or off.
func (c *Client) SetAutoCompaction(ctx context.Context, on bool) error {
	return c.Call(ctx, rpcproto.CmdSetAutoCompaction, EnabledRequest{Enabled: &on}, nil)
}

// SetAutoRetry turns the retries of transient model errors on or off.
func (c *Client) SetAutoRetry(ctx context.Context, on bool) error {
	return c.Call(ctx, rpcproto.CmdSetAutoRetry, EnabledRequest{Enabled: &on}, nil)
}

// AbortRetry ends the retry the session is waiting for, if any.
func (c *Client) AbortRetry(ctx context.Context) error {
	return c.Call(ctx, rpcproto.CmdAbortRetry, nil, nil)
}

// Bash runs a command in the session's shell; it waits as long as the
// command runs (ctx bounds it; AbortBash stops it).
func (c *Client) Bash(ctx context.Context, command string) (*BashResult, error) {
	var out BashResult
	if err := c.call(ctx, rpcproto.CmdBash, BashRequest{Command: command}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AbortBash stops the running bash command.
func (c *Client) AbortBash(ctx context.Context) (*AbortResult, error) {
	return do[AbortResult](ctx, c, rpcproto.CmdAbortBash, nil)
}

// GetSessionStats returns the session's counts.
func (c *Client) GetSessionStats(ctx context.Context) (*SessionStats, error) {
	return do[SessionStats](ctx, c, rpcproto.CmdGetSessionStats, nil)
}

// ExportHTML writes the session as an HTML page ("" path: the default).
func (c *Client) ExportHTML(ctx context.Context, path string) (*PathResult, error) {
	return do[PathResult](ctx, c, rpcproto.CmdExportHTML, ExportRequest{OutputPath: path})
}

// Branch goes back to the prompt at seq.
func (c *Client) Branch(ctx context.Context, seq int64) (*BranchResult, error) {
	return do[BranchResult](ctx, c, rpcproto.CmdBranch, BranchRequest{Seq: seq})
}

// GetBranchMessages lists the prompts of the current branch.
func (c *Client) GetBranchMessages(ctx context.Context) (*BranchMessages, error) {
	return do[BranchMessages](ctx, c, rpcproto.CmdGetBranchMessages, nil)
}

// GetLastAssistantText returns the agent's last answer (nil: none yet).
func (c *Client) GetLastAssistantText(ctx context.Context) (*string, error) {
	out, err := do[TextResult](ctx, c, rpcproto.CmdGetLastAssistantText, nil)
	if err != nil {
		return nil, err
	}
	return out.Text, nil
}

// SetSessionName renames the session.
func (c *Client) SetSessionName(ctx context.Context, name string) (*NameResult, error) {
	return do[NameResult](ctx, c, rpcproto.CmdSetSessionName, NameRequest{Name: name})
}

// GetMessages returns the conversation as pi messages.
func (c *Client) GetMessages(ctx context.Context) (*MessagesResult, error) {
	return do[MessagesResult](ctx, c, rpcproto.CmdGetMessages, nil)
}

// Approve approves a pending request; command, when not empty, runs
// instead of the requested command.
func (c *Client) Approve(ctx context.Context, approvalID, command string) (*ApprovalResult, error) {
	return do[ApprovalResult](ctx, c, rpcproto.CmdApprove, ApproveRequest{ApprovalID: approvalID, Command: command})
}

// Deny denies a pending request, with a reason for the agent.
func (c *Client) Deny(ctx context.Context, approvalID, reason string) (*ApprovalResult, error) {
	return do[ApprovalResult](ctx, c, rpcproto.CmdDeny, DenyRequest{ApprovalID: approvalID, Reason: reason})
}

// SetAutoApprove changes the session's toggles (nil: unchanged).
func (c *Client) SetAutoApprove(ctx context.Context, commands, sensitiveEdits *bool) (*AutoApprove, error) {
	return do[AutoApprove](ctx, c, rpcproto.CmdSetAutoApprove, AutoApproveRequest{Commands: commands, SensitiveEdits: sensitiveEdits})
}

// ListChanges returns the changes not yet kept or undone.
func (c *Client) ListChanges(ctx context.Context) (*Changes, error) {
	return do[Changes](ctx, c, rpcproto.CmdListChanges, nil)
}

// Keep keeps changes (a hunk, a file, or all).
func (c *Client) Keep(ctx context.Context, req ChangeRequest) (*ChangeResult, error) {
	return do[ChangeResult](ctx, c, rpcproto.CmdKeep, req)
}

// Undo undoes changes (a hunk, a file, or all).
func (c *Client) Undo(ctx context.Context, req ChangeRequest) (*ChangeResult, error) {
	return do[ChangeResult](ctx, c, rpcproto.CmdUndo, req)
}

// ReviewNavigate moves through the pending changes.
func (c *Client) ReviewNavigate(ctx context.Context, move, path string) (*Review, error) {
	return do[Review](ctx, c, rpcproto.CmdReviewNavigate, NavigateRequest{Move: move, Path: path})
}

// ListSessions lists stored sessions.
func (c *Client) ListSessions(ctx context.Context, req ListSessionsRequest) (*SessionsResult, error) {
	return do[SessionsResult](ctx, c, rpcproto.CmdListSessions, req)
}

// SearchSessions searches every session.
func (c *Client) SearchSessions(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	return do[SearchResult](ctx, c, rpcproto.CmdSearchSessions, req)
}

// GetEvents returns stored events after a seq.
func (c *Client) GetEvents(ctx context.Context, req EventsRequest) (*EventsResult, error) {
	return do[EventsResult](ctx, c, rpcproto.CmdGetEvents, req)
}

// SetMode changes the session's mode.
func (c *Client) SetMode(ctx context.Context, mode string) (*ModeResult, error) {
	return do[ModeResult](ctx, c, rpcproto.CmdSetMode, ModeRequest{Mode: mode})
}

// GetCommands lists the slash commands.
func (c *Client) GetCommands(ctx context.Context) (*CommandsResult, error) {
	return do[CommandsResult](ctx, c, rpcproto.CmdGetCommands, nil)
}
