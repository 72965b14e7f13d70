package rpcproto

import (
	"github.com/olly-agent/olly/event"
)

// The commands' fields and results, one Go type each: the server
// (internal/ui/rpc) decodes into them, the client (rpcclient) sends and
// reads them, and docs/rpc.md is generated from them. A field tagged rpc:"required" must be given (a
// string not blank); doc tags describe the field in the reference.

// Empty is a command without fields, or a result without data.
type Empty struct{}

// PromptRequest is prompt: a message for the agent.
type PromptRequest struct {
	Message string `json:"message" rpc:"required" doc:"the prompt; @path and @path:L10-L50 attach files, /plan and the other slash commands work as typed"`
	// StreamingBehavior says what to do while the agent is working.
	StreamingBehavior string `json:"streamingBehavior,omitempty" doc:"while a prompt runs: steer (the running turn reads it at its next step) or followUp (runs as the next turn); without it a busy session refuses the prompt"`
	Mode              string `json:"mode,omitempty" doc:"run this prompt in a mode (agent, plan, review, …) instead of the session's"`
	Model             string `json:"model,omitempty" doc:"run this prompt with another model"`
	// Images are pi's image content, attached for models with vision.
	Images []ImageContent `json:"images,omitempty" doc:"pi's image content, attached to the prompt for a model with the vision capability (a model without it fails the turn with an error naming one that has it); PNG, JPEG, GIF or WebP, at most 10 MB each"`
}

// ImageContent is an image of a prompt, as pi sends it.
type ImageContent struct {
	Type     string `json:"type" doc:"\"image\""`
	Data     string `json:"data" doc:"the image, base64"`
	MimeType string `json:"mimeType" doc:"image/png, image/jpeg, image/gif or image/webp (olly checks it against the bytes)"`
}

// MessageRequest is steer and follow_up.
type MessageRequest struct {
	Message string         `json:"message" rpc:"required" doc:"the message"`
	Images  []ImageContent `json:"images,omitempty" doc:"pi's image content, as on prompt"`
}

// PromptResult answers prompt, steer and follow_up. Queued says what
// happened to the message: "" it runs now (its events follow), "steer" or
// "followUp" it waits for the running turn.
type PromptResult struct {
	Queued    string `json:"queued" doc:"\"\" when it runs now, steer or followUp when it waits for the running turn"`
	SessionID string `json:"sessionId" doc:"the session it belongs to"`
}

// AbortResult answers abort and abort_bash.
type AbortResult struct {
	Aborted bool `json:"aborted" doc:"whether something was running"`
	// Dropped counts the queued messages abort dropped.
	Dropped int `json:"dropped" doc:"queued steering and follow-up messages dropped"`
}

// NewSessionRequest is new_session.
type NewSessionRequest struct {
	Workspace string `json:"workspace,omitempty" doc:"the new session's workspace directory (default: the current session's)"`
}

// SwitchResult answers new_session and switch_session.
type SwitchResult struct {
	Cancelled bool   `json:"cancelled" doc:"always false (pi extensions could cancel a switch)"`
	SessionID string `json:"sessionId" doc:"the session commands now act on"`
	Workspace string `json:"workspace" doc:"its workspace"`
	Title     string `json:"title,omitempty" doc:"its title"`
	LastSeq   int64  `json:"lastSeq" doc:"its last stored event; live events follow from there"`
}

// SwitchRequest is switch_session.
type SwitchRequest struct {
	SessionID string `json:"sessionId,omitempty" doc:"the session (an id or a unique prefix of one)"`
	// SessionPath is pi's name for it.
	SessionPath string `json:"sessionPath,omitempty" doc:"the same, under pi's name"`
}

// State answers get_state: pi's RpcSessionState and olly's own fields.
type State struct {
	Model                 *PiModel                  `json:"model" doc:"the session's model, null when none is set"`
	ThinkingLevel         string                    `json:"thinkingLevel" doc:"the session's thinking level (set_thinking_level); until set, medium when agent.enableThinking is on, else off"`
	IsStreaming           bool                      `json:"isStreaming" doc:"a prompt is running"`
	IsCompacting          bool                      `json:"isCompacting" doc:"a compact command is running"`
	SteeringMode          string                    `json:"steeringMode" doc:"all or one-at-a-time (set_steering_mode)"`
	FollowUpMode          string                    `json:"followUpMode" doc:"one-at-a-time or all (set_follow_up_mode)"`
	InterruptMode         string                    `json:"interruptMode" doc:"wait or immediate (set_interrupt_mode)"`
	SessionID             string                    `json:"sessionId"`
	SessionName           string                    `json:"sessionName,omitempty" doc:"the session's title"`
	AutoCompactionEnabled bool                      `json:"autoCompactionEnabled" doc:"whether the context is compacted automatically when it fills up"`
	MessageCount          int                       `json:"messageCount" doc:"messages in the conversation (get_messages)"`
	PendingMessageCount   int                       `json:"pendingMessageCount" doc:"queued steering and follow-up messages"`
	Workspace             string                    `json:"workspace"`
	Mode                  string                    `json:"mode" doc:"the session's mode"`
	Status                string                    `json:"status" doc:"idle, generating, error or interrupted"`
	AutoApprove           AutoApprove               `json:"autoApprove" doc:"what runs without asking: the session's toggles, or --yes"`
	PendingApprovals      []event.ApprovalRequested `json:"pendingApprovals" doc:"approval requests waiting for an answer"`
	Queue                 QueueCounts               `json:"queue" doc:"queued messages by kind"`
	LastSeq               int64                     `json:"lastSeq" doc:"the session's last stored event (get_events resumes after it)"`
	Events                string                    `json:"events" doc:"the event families written: olly, pi or both"`
	Todos                 []event.Todo              `json:"todos" doc:"the agent's current todo list (the last todo_list event of the branch), [] when it kept none"`
}

// AutoApprove is a session's two auto-approve toggles.
type AutoApprove struct {
	Commands       bool `json:"commands" doc:"terminal commands below critical run without asking"`
	SensitiveEdits bool `json:"sensitiveEdits" doc:"edits of sensitive files below critical are made without asking"`
}

// PiModel is a model as pi describes one, with what olly knows besides.
type PiModel struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	BaseURL       string   `json:"baseUrl,omitempty"`
	Reasoning     bool     `json:"reasoning" doc:"the model can think"`
	Input         []string `json:"input" doc:"text, and image for vision models"`
	ContextWindow int      `json:"contextWindow" doc:"trained context length (0: unknown)"`
	MaxTokens     int      `json:"maxTokens" doc:"output limit (agentMode.maxTokens; 0: the server's)"`
	Cost          PiCost   `json:"cost" doc:"always zero: local models"`
	Tools         bool     `json:"tools" doc:"native tool calling (otherwise olly uses text tool calls)"`
	Family        string   `json:"family,omitempty"`
	ParameterSize string   `json:"parameterSize,omitempty"`
	Quantization  string   `json:"quantization,omitempty"`
	Running       bool     `json:"running,omitempty" doc:"loaded by the server now"`
	Dialect       string   `json:"dialect,omitempty" doc:"the tool-call dialect of the model's template (as list_models); absent: none recognised"`
}

// SetModelRequest is set_model.
type SetModelRequest struct {
	ModelID  string `json:"modelId" rpc:"required" doc:"the model's name on the server (qwen3:8b)"`
	Provider string `json:"provider,omitempty" doc:"ignored: olly talks to the one server it is configured for"`
}

// ModelsResult answers get_available_models.
type ModelsResult struct {
	Models []PiModel `json:"models"`
}

// CompactRequest is compact.
type CompactRequest struct {
	CustomInstructions string `json:"customInstructions,omitempty" doc:"what the summary should keep"`
}

// CompactResult answers compact: the compaction recorded.
type CompactResult struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId" doc:"the first event kept verbatim (its seq, as a string)"`
	FirstKeptSeq     int64  `json:"firstKeptSeq"`
	TokensBefore     int    `json:"tokensBefore"`
	TokensAfter      int    `json:"tokensAfter"`
}

// EnabledRequest is set_auto_compaction.
type EnabledRequest struct {
	Enabled *bool `json:"enabled" rpc:"required" doc:"true or false"`
}

// BashRequest is bash.
type BashRequest struct {
	Command string `json:"command" rpc:"required" doc:"the shell command line"`
}

// BashResult answers bash (pi's BashResult, with olly's fields).
type BashResult struct {
	Output         string `json:"output" doc:"stdout and stderr as written (truncated: 15 head and 85 tail lines)"`
	ExitCode       int    `json:"exitCode" doc:"the exit status (-1: it did not run or was killed)"`
	Cancelled      bool   `json:"cancelled" doc:"abort_bash (or abort) stopped it"`
	Truncated      bool   `json:"truncated" doc:"output was cut; the whole is in fullOutputPath"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
	Command        string `json:"command" doc:"the command as run"`
	Denied         bool   `json:"denied,omitempty" doc:"an approval refused it"`
	TimedOut       bool   `json:"timedOut,omitempty"`
	Message        string `json:"message,omitempty" doc:"why it did not run, when it did not"`
	Turn           int    `json:"turn" doc:"the session turn that records it"`
}

// SessionStats answers get_session_stats.
type SessionStats struct {
	SessionID         string      `json:"sessionId"`
	UserMessages      int         `json:"userMessages"`
	AssistantMessages int         `json:"assistantMessages"`
	ToolCalls         int         `json:"toolCalls"`
	ToolResults       int         `json:"toolResults"`
	TotalMessages     int         `json:"totalMessages"`
	Tokens            TokenTotals `json:"tokens"`
	Cost              float64     `json:"cost" doc:"always 0: local models"`
	Turns             int         `json:"turns"`
	ContextWindow     int         `json:"contextWindow" doc:"the last request's context window"`
	ContextTokens     int         `json:"contextTokens" doc:"the last request's prompt size"`
	// ContextCategories is what ContextTokens was made of.
	ContextCategories event.TokenCategories `json:"contextCategories" doc:"the last request's prompt by category (system prompt, tool definitions, messages, tool results, attached files, instruction files), as its token_usage event gave them; zeros before the first request"`
	PendingAdditions  int                   `json:"pendingAdditions" doc:"lines added by changes not yet kept or undone"`
	PendingDeletions  int                   `json:"pendingDeletions"`
}

// TokenTotals add up a session's token use.
type TokenTotals struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// ExportRequest is export_html.
type ExportRequest struct {
	OutputPath string `json:"outputPath,omitempty" doc:"where to write the page (default: olly-<session>.html in olly's data directory)"`
}

// PathResult answers export_html.
type PathResult struct {
	Path string `json:"path"`
}

// BranchRequest is branch: go back to a prompt of the session.
type BranchRequest struct {
	EntryID string `json:"entryId,omitempty" doc:"the prompt's entry (get_branch_messages), a seq as a string"`
	Seq     int64  `json:"seq,omitempty" doc:"the same as a number"`
}

// BranchResult answers branch.
type BranchResult struct {
	Text      string `json:"text" doc:"the prompt's text, to edit and send again"`
	Cancelled bool   `json:"cancelled" doc:"always false"`
	Seq       int64  `json:"seq"`
	Turn      int    `json:"turn"`
}

// BranchMessage is a prompt a branch can start from.
type BranchMessage struct {
	EntryID string `json:"entryId"`
	Seq     int64  `json:"seq"`
	Turn    int    `json:"turn"`
	Text    string `json:"text"`
}

// BranchMessages answers get_branch_messages.
type BranchMessages struct {
	Messages []BranchMessage `json:"messages"`
}

// TextResult answers get_last_assistant_text.
type TextResult struct {
	Text *string `json:"text" doc:"null when the agent has not answered yet"`
}

// NameRequest is set_session_name.
type NameRequest struct {
	Name string `json:"name" rpc:"required" doc:"the session's new title"`
}

// NameResult answers set_session_name.
type NameResult struct {
	SessionID string `json:"sessionId"`
	Name      string `json:"name"`
}

// MessagesResult answers get_messages.
type MessagesResult struct {
	Messages []PiMessage `json:"messages"`
}

// ApproveRequest is approve.
type ApproveRequest struct {
	ApprovalID string `json:"approvalId" rpc:"required" doc:"the approval_requested event's approvalId"`
	Command    string `json:"command,omitempty" doc:"the command as edited, to run instead (command approvals only)"`
	// OutsideSandbox runs the approved command outside the sandbox.
	OutsideSandbox bool `json:"outsideSandbox,omitempty" doc:"run the command outside the sandbox (command approvals only; only a person's answer grants this)"`
}

// DenyRequest is deny.
type DenyRequest struct {
	ApprovalID string `json:"approvalId" rpc:"required" doc:"the approval_requested event's approvalId"`
	Reason     string `json:"reason,omitempty" doc:"why, for the agent"`
}

// ApprovalResult answers approve and deny.
type ApprovalResult struct {
	ApprovalID string `json:"approvalId"`
	Decision   string `json:"decision" doc:"approved or denied"`
}

// AutoApproveRequest is set_auto_approve; an absent field is left as it
// is.
type AutoApproveRequest struct {
	Commands       *bool `json:"commands,omitempty" doc:"run terminal commands below critical without asking"`
	SensitiveEdits *bool `json:"sensitiveEdits,omitempty" doc:"edit sensitive files below critical without asking"`
}

// Changes answers list_changes: the session's changes not yet kept or
// undone.
type Changes struct {
	SessionID   string            `json:"sessionId"`
	Additions   int               `json:"additions" doc:"lines added by the changes still pending (kept and undone files do not count)"`
	Deletions   int               `json:"deletions" doc:"lines deleted by the changes still pending"`
	Checkpoints []CheckpointStats `json:"checkpoints" doc:"each agent run with pending files, oldest first"`
	Files       []FileReview      `json:"files" doc:"each file with its hunks, numbered as keep and undo take them"`
	Position    ChangePosition    `json:"position" doc:"the review's current change"`
}

// ChangeRequest is keep and undo: a hunk of a file, a file, or all.
type ChangeRequest struct {
	Path string `json:"path,omitempty" doc:"a file as list_changes names it (workspace-relative)"`
	Hunk int    `json:"hunk,omitempty" doc:"a hunk of path (1-based, as list_changes numbers it); 0: the whole file"`
	All  bool   `json:"all,omitempty" doc:"every pending change of the session"`
}

// ChangeResult answers keep and undo.
type ChangeResult struct {
	Outcomes  []Outcome      `json:"outcomes" doc:"what happened in each checkpoint"`
	Conflicts []Conflict     `json:"conflicts" doc:"changes not undone because the file changed there since (keep them, or edit the file)"`
	Position  ChangePosition `json:"position" doc:"the review's current change afterwards"`
}

// NavigateRequest is review_navigate.
type NavigateRequest struct {
	Move string `json:"move" rpc:"required" doc:"next, prev, next_file, prev_file, first, last, or focus (with path)"`
	Path string `json:"path,omitempty" doc:"the file to focus"`
}

// Review answers review_navigate: where the review is, and the change
// there.
type Review struct {
	Position ChangePosition `json:"position"`
	File     *FileReview    `json:"file" doc:"the current file, null when nothing is left"`
	Hunk     *Hunk          `json:"hunk" doc:"the current hunk"`
}

// ListSessionsRequest is list_sessions.
type ListSessionsRequest struct {
	Workspace string `json:"workspace,omitempty" doc:"a workspace directory (default: the current session's)"`
	All       bool   `json:"all,omitempty" doc:"every workspace"`
	Limit     int    `json:"limit,omitempty" doc:"at most this many (default 50)"`
}

// SessionsResult answers list_sessions.
type SessionsResult struct {
	Sessions []Session `json:"sessions" doc:"most recently updated first"`
}

// SearchRequest is search_sessions.
type SearchRequest struct {
	Query     string `json:"query" rpc:"required" doc:"words to find in prompts, answers and titles"`
	Workspace string `json:"workspace,omitempty" doc:"a workspace directory (default: every workspace)"`
	Limit     int    `json:"limit,omitempty" doc:"at most this many sessions (default 20)"`
	WordsOnly bool   `json:"wordsOnly,omitempty" doc:"search by words even with an embedding model"`
}

// EventsRequest is get_events: the stored events after a seq, for a client
// that reconnects.
type EventsRequest struct {
	AfterSeq  int64  `json:"afterSeq,omitempty" doc:"the last seq the client has (0: from the start)"`
	Limit     int    `json:"limit,omitempty" doc:"at most this many (default and maximum 5000)"`
	SessionID string `json:"sessionId,omitempty" doc:"another session's (default: the current one)"`
}

// EventsResult answers get_events.
type EventsResult struct {
	Events  []event.Event `json:"events" doc:"in seq order, every branch of the session's log"`
	LastSeq int64         `json:"lastSeq" doc:"the last seq returned (afterSeq when none)"`
	More    bool          `json:"more" doc:"more events follow: ask again after lastSeq"`
}

// ModeRequest is set_mode.
type ModeRequest struct {
	Mode string `json:"mode" rpc:"required" doc:"agent, plan, review, security-review, deep-explore, explore or chat"`
}

// ModeResult answers set_mode.
type ModeResult struct {
	Mode string `json:"mode"`
}

// CommandInfo is one slash command (get_commands).
type CommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Usage       string `json:"usage"`
	Source      string `json:"source" doc:"builtin; mcp for an MCP server's prompt (/mcp__server__prompt); or where a custom command was found: project (.olly/commands), claude (.claude/commands) or user (~/.config/olly/commands)"`
}

// CommandsResult answers get_commands.
type CommandsResult struct {
	Commands []CommandInfo `json:"commands"`
}
