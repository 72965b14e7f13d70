package event

import "encoding/json"

// The event types. Durable unless marked ephemeral.
const (
	TypeTurnStarted         Type = "turn_started"
	TypeTurnFinished        Type = "turn_finished"
	TypeUserMessage         Type = "user_message"
	TypeTextDelta           Type = "text_delta"     // ephemeral
	TypeThinkingDelta       Type = "thinking_delta" // ephemeral
	TypeThinkingBlock       Type = "thinking_block"
	TypeAssistantMessage    Type = "assistant_message"
	TypeToolResult          Type = "tool_result"
	TypeControlMessage      Type = "control_message"
	TypeFinalMessage        Type = "final_message"
	TypeCompaction          Type = "compaction"
	TypeProgressGroupStart  Type = "progress_group_start"
	TypeToolAction          Type = "tool_action"
	TypeToolOutput          Type = "tool_output" // ephemeral
	TypeProgressGroupFinish Type = "progress_group_finish"
	TypeSubagentThinking    Type = "subagent_thinking"
	TypeApprovalRequested   Type = "approval_requested"
	TypeApprovalResolved    Type = "approval_resolved"
	TypeFilesChanged        Type = "files_changed"
	TypeFileChangeResult    Type = "file_change_result"
	TypeKeepUndoResult      Type = "keep_undo_result"
	TypeTokenUsage          Type = "token_usage"
	TypeTitleChanged        Type = "title_changed"
	TypeSessionSettings     Type = "session_settings"
	TypeError               Type = "error"
	TypeWarning             Type = "warning"
	TypeMCPServerFailed     Type = "mcp_server_failed"
	TypeStatus              Type = "status" // ephemeral
	TypeTodoList            Type = "todo_list"
)

// TurnStarted opens a turn: the agent starts working on a prompt.
type TurnStarted struct {
	// Mode is the executor mode (ModeAgent, ModePlan…).
	Mode  Mode   `json:"mode"`
	Model string `json:"model"`
	// Dispatch is how the agent classified an agent-mode prompt, and so
	// why the turn runs in Mode; nil when nothing was classified (a mode
	// the person chose, a sub-agent).
	Dispatch *Dispatch `json:"dispatch,omitempty"`
}

// Task intents (Dispatch.Intent).
const (
	IntentAnalyze = "analyze" // understand or explain; read-only unless NeedsWrite
	IntentModify  = "modify"  // change existing code
	IntentCreate  = "create"  // add new files or features
	IntentMixed   = "mixed"   // several, or unknown (the fallback)
)

// Dispatch is the classification of a prompt that chose the turn's route:
// pure analysis runs read-only (deep-explore), everything else runs the
// orchestrator with task rules adapted to the intent.
type Dispatch struct {
	// Intent is one of the Intent* constants.
	Intent string `json:"intent"`
	// NeedsWrite says the task requires changing files: the turn may not
	// finish without a write (asked once).
	NeedsWrite bool `json:"needsWrite"`
	// Confidence is 0 when classification failed and the fallback
	// (mixed, needs writes) was used.
	Confidence float64 `json:"confidence"`
	// Reasoning is the model's one-line reason, or why classifying failed.
	Reasoning string `json:"reasoning,omitempty"`
}

// Turn finish statuses.
const (
	FinishDone          = "done"
	FinishFailed        = "failed"
	FinishCanceled      = "canceled"
	FinishMaxIterations = "max_iterations"
)

// TurnFinished closes a turn.
type TurnFinished struct {
	// Status is one of the Finish* constants.
	Status     string `json:"status"`
	Iterations int    `json:"iterations"`
	// Error describes the failure when Status is failed.
	Error string `json:"error,omitempty"`
}

// UserMessage is the person's prompt. It is also the conversation entry the
// model sees (with the attachments rendered into it).
type UserMessage struct {
	Text        string       `json:"text"`
	Attachments []Attachment `json:"attachments,omitempty"`
	// Content is the full text sent to the model (labels, attachments and
	// prompt), when it differs from Text.
	Content string `json:"content,omitempty"`
	// Mode is a slash-command mode the prompt selected (plan, review…).
	Mode Mode `json:"mode,omitempty"`
	// Steering marks a message the person sent into a running turn
	// (steer): the turn read it between two iterations. It is part of that
	// turn, not a prompt of its own: no branch starts at it.
	Steering bool `json:"steering,omitempty"`
}

// TextDelta is streamed assistant text (ephemeral). Text is the new text
// only; a frontend appends it to the current text block. It is superseded
// by the AssistantMessage of the same iteration.
type TextDelta struct {
	Iteration int    `json:"iteration"`
	Text      string `json:"text"`
}

// ThinkingDelta is streamed reasoning (ephemeral), superseded by the
// ThinkingBlock of the same iteration.
type ThinkingDelta struct {
	Iteration int    `json:"iteration"`
	Text      string `json:"text"`
}

// ThinkingBlock is the model's reasoning for one iteration, shown collapsed
// ("Thought for 8s"). It is never sent back to the model.
type ThinkingBlock struct {
	Iteration  int    `json:"iteration"`
	Content    string `json:"content"`
	DurationMs int64  `json:"durationMs"`
}

// AssistantMessage is one iteration's assistant output: what the person
// sees (Text) and the conversation entry the model sees (Content and
// ToolCalls). Keeping both in one event is what stops history from showing
// the same words twice (seed pitfall #36).
type AssistantMessage struct {
	Iteration int `json:"iteration"`
	// Text is the displayed text: the response with tool-call markup and
	// the completion signal removed. May be empty.
	Text string `json:"text"`
	// Content is the assistant content as sent back to the model in
	// history (a tool-call summary or "[Reasoning completed]" when the
	// model wrote nothing — seed pitfalls #35 and #38). Never thinking.
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Model     string     `json:"model,omitempty"`
}

// ToolResult is a tool's result as the model sees it. Not rendered: the
// ToolAction events render the tool for the person.
type ToolResult struct {
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName"`
	Content    string `json:"content"`
	IsError    bool   `json:"isError,omitempty"`
}

// Control message kinds.
const (
	ControlContinuation = "continuation" // the <agent_control> packet between iterations
	ControlReminder     = "reminder"     // task reminder after native tool results
	ControlNote         = "note"         // a [SYSTEM NOTE] (batch caps, duplicates), dropped when stale
	ControlTruncated    = "truncated"    // "continue where you left off"
	ControlDiagnostics  = "diagnostics"  // the verification gate's findings
)

// ControlMessage is a message the agent itself added to the conversation
// (as role user). Not rendered.
type ControlMessage struct {
	Kind      string `json:"kind"`
	Content   string `json:"content"`
	Iteration int    `json:"iteration"`
}

// FinalMessage is the summary appended to the turn's assistant message after
// its tool blocks (seed critical rule #3).
type FinalMessage struct {
	Text string `json:"text"`
	// Fallback is true when the model wrote no summary and olly built one.
	Fallback bool `json:"fallback,omitempty"`
	// Plan is true when the text is the plan a plan-mode turn produced:
	// frontends offer "Implement this plan" (session.Service.ImplementPlan).
	Plan bool `json:"plan,omitempty"`
}

// Compaction replaces the conversation before FirstKeptSeq with Summary in
// what the model sees. Rendered as a notice.
type Compaction struct {
	Summary      string `json:"summary"`
	FirstKeptSeq int64  `json:"firstKeptSeq"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	// Instructions are the person's own /compact instructions, if any.
	Instructions string `json:"instructions,omitempty"`
}

// ProgressGroupStart opens a group of tool actions ("Reading files",
// "Sub-agent: map the auth flow").
type ProgressGroupStart struct {
	GroupID string `json:"groupId"`
	Title   string `json:"title"`
	Detail  string `json:"detail,omitempty"`
	// ParentGroupID nests this group (a sub-agent's) in another.
	ParentGroupID string `json:"parentGroupId,omitempty"`
	// Subagent marks a sub-agent's wrapper group.
	Subagent bool `json:"subagent,omitempty"`
}

// Tool action statuses, in the order an action goes through them.
const (
	ActionPending = "pending"
	ActionRunning = "running"
	ActionSuccess = "success"
	ActionError   = "error"
)

// ToolAction is one tool call's state in a group. An action is identified by
// ActionID; later events with the same id update it in place.
type ToolAction struct {
	GroupID  string `json:"groupId"`
	ActionID string `json:"actionId"`
	Tool     string `json:"tool"`
	Status   string `json:"status"`
	// Text is the action line ("Read main.go"), Detail the muted part
	// ("lines 1–100").
	Text   string `json:"text"`
	Detail string `json:"detail,omitempty"`
	Icon   string `json:"icon,omitempty"`
	// FilePath and StartLine let a frontend open the file at the spot.
	FilePath  string `json:"filePath,omitempty"`
	StartLine int    `json:"startLine,omitempty"`
	// CheckpointID is set on file edits, with their +N −N.
	CheckpointID string `json:"checkpointId,omitempty"`
	Additions    int    `json:"additions,omitempty"`
	Deletions    int    `json:"deletions,omitempty"`
	// Output is the (truncated) output shown under a terminal command.
	Output string `json:"output,omitempty"`
	// Artifact is the file that holds a command's full output when Output
	// is cut (an absolute path in olly's artifacts directory).
	Artifact string `json:"artifact,omitempty"`
	// Listing is a structured result for list/search tools (file, count).
	Listing []ListingEntry `json:"listing,omitempty"`
}

// ListingEntry is one line of a tool's structured listing.
type ListingEntry struct {
	Path  string `json:"path"`
	Count int    `json:"count,omitempty"`
	IsDir bool   `json:"isDir,omitempty"`
}

// ToolOutput is live output of a running action (ephemeral), superseded by
// the action's final ToolAction.
type ToolOutput struct {
	ActionID string `json:"actionId"`
	Text     string `json:"text"`
}

// ProgressGroupFinish closes a group once all its actions are done.
type ProgressGroupFinish struct {
	GroupID string `json:"groupId"`
}

// SubagentThinking is a sub-agent's reasoning, attached collapsed to its
// group.
type SubagentThinking struct {
	GroupID    string `json:"groupId"`
	Content    string `json:"content"`
	DurationMs int64  `json:"durationMs,omitempty"`
}

// ChangedFile is one file in a checkpoint.
type ChangedFile struct {
	Path string `json:"path"`
	// Action is "created" or "modified".
	Action    string `json:"action"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	// Status is "pending", "kept", "undone" or "partial".
	Status string `json:"status,omitempty"`
}

// FilesChanged reports the files of a checkpoint. Frontends merge events
// with the same CheckpointID (seed pitfall #14).
type FilesChanged struct {
	CheckpointID string        `json:"checkpointId"`
	Files        []ChangedFile `json:"files"`
	Status       string        `json:"status"`
}

// FileChangeResult reports a keep or undo of one file or hunk.
type FileChangeResult struct {
	CheckpointID string `json:"checkpointId"`
	FilePath     string `json:"filePath"`
	// Action is "keep" or "undo".
	Action string `json:"action"`
	// Hunk is the 1-based hunk number, or 0 for the whole file.
	Hunk    int    `json:"hunk,omitempty"`
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
	// Conflicts lists hunks that could not be undone because the file
	// changed since (the person's own edits are never overwritten).
	Conflicts []string `json:"conflicts,omitempty"`
	// Resolved is true when the file has no pending hunks left.
	Resolved bool `json:"resolved,omitempty"`
}

// KeepUndoResult reports a keep-all or undo-all of a checkpoint.
type KeepUndoResult struct {
	CheckpointID string   `json:"checkpointId"`
	Action       string   `json:"action"`
	Success      bool     `json:"success"`
	Error        string   `json:"error,omitempty"`
	Conflicts    []string `json:"conflicts,omitempty"`
}

// TokenCategories break a prompt's size down by where it came from.
type TokenCategories struct {
	System          int `json:"system"`
	ToolDefinitions int `json:"toolDefinitions"`
	Messages        int `json:"messages"`
	ToolResults     int `json:"toolResults"`
	Files           int `json:"files"`
	// Instructions are the instruction files (AGENTS.md, CLAUDE.md…)
	// inside the system prompt.
	Instructions int `json:"instructions"`
}

// TokenUsage reports context use after an iteration.
type TokenUsage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	ContextWindow    int `json:"contextWindow"`
	// Estimated is true when the server gave no counts and olly estimated.
	Estimated  bool            `json:"estimated,omitempty"`
	Categories TokenCategories `json:"categories"`
}

// TitleChanged sets the session's title.
type TitleChanged struct {
	Title string `json:"title"`
}

// SessionSettings records a change of the session's own settings.
type SessionSettings struct {
	Model                     *string `json:"model,omitempty"`
	ExplorerModel             *string `json:"explorerModel,omitempty"`
	Mode                      *Mode   `json:"mode,omitempty"`
	AutoApproveCommands       *bool   `json:"autoApproveCommands,omitempty"`
	AutoApproveSensitiveEdits *bool   `json:"autoApproveSensitiveEdits,omitempty"`
	// SensitivePatterns are the session's own sensitive-file rules (a
	// list of {pattern, action}), which replace agent.sensitiveFilePatterns
	// for its turns; JSON null: back to the settings' rules.
	SensitivePatterns json.RawMessage `json:"sensitivePatterns,omitempty"`
}

// Error is a failure shown to the person.
type Error struct {
	Message string `json:"message"`
	// Kind classifies it ("connection", "model_not_found", …) when known.
	Kind string `json:"kind,omitempty"`
}

// Warning is a banner (for example: the model has no native tool calling).
type Warning struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Warning codes a frontend acts on: a project program did not start for
// want of a person's trust, so the trust prompts are asked for again (the
// web page matches the same strings).
const (
	WarningMCPUntrusted   = "mcp_untrusted"
	WarningHooksUntrusted = "hooks_untrusted"
)

// MCPServerFailed reports that an MCP server could not be started or
// reached, or stopped; its tools are missing until a retry succeeds.
type MCPServerFailed struct {
	Server string `json:"server"`
	// Transport is "stdio", "http" or "sse".
	Transport string `json:"transport,omitempty"`
	Error     string `json:"error"`
	// RetryInMs is how long until olly tries again (backoff).
	RetryInMs int64 `json:"retryInMs,omitempty"`
}

// Status is a transient spinner line ("Writing main.go…") (ephemeral).
type Status struct {
	Text string `json:"text"`
}
