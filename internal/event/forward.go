// Package event is the in-process event bus (Bus, Subscription), and —
// for the code written before the event types went public — a forwarder
// to the public package github.com/olly-agent/olly/event, where the event
// types, payloads and their wire codec live.
//
// New code imports github.com/olly-agent/olly/event for the types and
// payloads; only the bus belongs here. The aliases below keep the existing
// importers compiling unchanged (a type alias is the same type, so values
// move freely between the two names); they go when no importer is left.
// A name added to the public package is added here too (a test checks).
package event

import "github.com/olly-agent/olly/event"

// The event types and payloads: aliases of the public package's.
type (
	ApprovalRequested   = event.ApprovalRequested
	ApprovalResolved    = event.ApprovalResolved
	AssistantMessage    = event.AssistantMessage
	Attachment          = event.Attachment
	ImageRef            = event.ImageRef
	ChangedFile         = event.ChangedFile
	CommandSandbox      = event.CommandSandbox
	Compaction          = event.Compaction
	ControlMessage      = event.ControlMessage
	Dispatch            = event.Dispatch
	Error               = event.Error
	Event               = event.Event
	FileChangeResult    = event.FileChangeResult
	FilesChanged        = event.FilesChanged
	FinalMessage        = event.FinalMessage
	HookRun             = event.HookRun
	TrustResolved       = event.TrustResolved
	KeepUndoResult      = event.KeepUndoResult
	Mode                = event.Mode
	ListingEntry        = event.ListingEntry
	Payload             = event.Payload
	ProgressGroupFinish = event.ProgressGroupFinish
	ProgressGroupStart  = event.ProgressGroupStart
	SessionSettings     = event.SessionSettings
	Status              = event.Status
	ModelRetry          = event.ModelRetry
	SubagentThinking    = event.SubagentThinking
	TextDelta           = event.TextDelta
	ThinkingBlock       = event.ThinkingBlock
	ThinkingDelta       = event.ThinkingDelta
	TitleChanged        = event.TitleChanged
	TokenCategories     = event.TokenCategories
	TokenUsage          = event.TokenUsage
	ToolAction          = event.ToolAction
	ToolCall            = event.ToolCall
	ToolOutput          = event.ToolOutput
	ToolResult          = event.ToolResult
	TurnFinished        = event.TurnFinished
	TurnStarted         = event.TurnStarted
	Type                = event.Type
	UserMessage         = event.UserMessage
	Warning             = event.Warning
	MCPServerFailed     = event.MCPServerFailed
)

// The public package's constants.
const (
	ActionError             = event.ActionError
	ActionPending           = event.ActionPending
	ActionRunning           = event.ActionRunning
	ActionSuccess           = event.ActionSuccess
	ApprovalCommand         = event.ApprovalCommand
	ApprovalDirectory       = event.ApprovalDirectory
	ApprovalTool            = event.ApprovalTool
	ApprovalFileEdit        = event.ApprovalFileEdit
	ApprovalModeAsk         = event.ApprovalModeAsk
	ApprovalModeAuto        = event.ApprovalModeAuto
	ControlContinuation     = event.ControlContinuation
	ControlDiagnostics      = event.ControlDiagnostics
	ControlNote             = event.ControlNote
	ControlReminder         = event.ControlReminder
	ControlTruncated        = event.ControlTruncated
	DecisionApproved        = event.DecisionApproved
	DecisionCanceled        = event.DecisionCanceled
	DecisionDenied          = event.DecisionDenied
	FinishCanceled          = event.FinishCanceled
	FinishDone              = event.FinishDone
	FinishFailed            = event.FinishFailed
	FinishMaxIterations     = event.FinishMaxIterations
	IntentAnalyze           = event.IntentAnalyze
	IntentCreate            = event.IntentCreate
	IntentMixed             = event.IntentMixed
	IntentModify            = event.IntentModify
	ModeAgent               = event.ModeAgent
	ModeBash                = event.ModeBash
	ModeChat                = event.ModeChat
	ModeDeepExplore         = event.ModeDeepExplore
	ModeDeepExploreWrite    = event.ModeDeepExploreWrite
	ModeExplore             = event.ModeExplore
	ModePlan                = event.ModePlan
	ModeReview              = event.ModeReview
	ModeSecurityReview      = event.ModeSecurityReview
	SandboxReadOnly         = event.SandboxReadOnly
	SandboxUnsandboxed      = event.SandboxUnsandboxed
	SandboxWorkspaceWrite   = event.SandboxWorkspaceWrite
	TypeApprovalRequested   = event.TypeApprovalRequested
	TypeApprovalResolved    = event.TypeApprovalResolved
	TypeAssistantMessage    = event.TypeAssistantMessage
	TypeCompaction          = event.TypeCompaction
	TypeControlMessage      = event.TypeControlMessage
	TypeError               = event.TypeError
	TypeFileChangeResult    = event.TypeFileChangeResult
	TypeFilesChanged        = event.TypeFilesChanged
	TypeFinalMessage        = event.TypeFinalMessage
	TypeKeepUndoResult      = event.TypeKeepUndoResult
	TypeProgressGroupFinish = event.TypeProgressGroupFinish
	TypeProgressGroupStart  = event.TypeProgressGroupStart
	TypeSessionSettings     = event.TypeSessionSettings
	TypeStatus              = event.TypeStatus
	TypeModelRetry          = event.TypeModelRetry
	RetryStart              = event.RetryStart
	RetryEnd                = event.RetryEnd
	TypeHookRun             = event.TypeHookRun
	TypeTrustResolved       = event.TypeTrustResolved
	TypeSubagentThinking    = event.TypeSubagentThinking
	TypeTextDelta           = event.TypeTextDelta
	TypeThinkingBlock       = event.TypeThinkingBlock
	TypeThinkingDelta       = event.TypeThinkingDelta
	TypeTitleChanged        = event.TypeTitleChanged
	TypeTokenUsage          = event.TypeTokenUsage
	TypeToolAction          = event.TypeToolAction
	TypeToolOutput          = event.TypeToolOutput
	TypeToolResult          = event.TypeToolResult
	TypeTurnFinished        = event.TypeTurnFinished
	TypeTurnStarted         = event.TypeTurnStarted
	TypeUserMessage         = event.TypeUserMessage
	TypeWarning             = event.TypeWarning
	TypeMCPServerFailed     = event.TypeMCPServerFailed

	WarningMCPUntrusted   = event.WarningMCPUntrusted
	WarningHooksUntrusted = event.WarningHooksUntrusted
)

// DecodePayload decodes the payload of an event of type t (event.DecodePayload).
func DecodePayload(t Type, data []byte) (Payload, error) { return event.DecodePayload(t, data) }

// Durable reports whether events of type t are stored (event.Durable).
func Durable(t Type) bool { return event.Durable(t) }

// Known reports whether t is an event type this olly knows (event.Known).
func Known(t Type) bool { return event.Known(t) }

// Types lists every event type, in the reference order (event.Types).
func Types() []Type { return event.Types() }

// WarmEncoders builds the encoders of every payload type (event.WarmEncoders).
func WarmEncoders() { event.WarmEncoders() }
