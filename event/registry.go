package event

import "encoding/json"

// typeInfo is what the codec knows about one event type.
type typeInfo struct {
	durable bool
	decode  func(data []byte) (Payload, error)
	warm    func() // builds encoding/json's encoder of the payload type
}

// entry builds the typeInfo for payload type T. Payloads are value types, so
// a consumer switches on ev.Data.(type) with plain struct cases.
func entry[T Payload](durable bool) typeInfo {
	return typeInfo{durable: durable, decode: func(data []byte) (Payload, error) {
		var v T
		if data != nil {
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
		}
		return v, nil
	}, warm: func() {
		var v T
		_, _ = json.Marshal(v)
	}}
}

// WarmEncoders builds encoding/json's encoder of every payload type (json
// builds one the first time it meets a type and caches it for the
// process). Run off the critical path before the first events of a turn
// are emitted (internal/agent does), it keeps that cost — the better part
// of a millisecond in all — out of the turn's first iteration. It is safe
// to call from any goroutine, and again.
func WarmEncoders() {
	for _, t := range order {
		registry[t].warm()
	}
}

const (
	durable   = true
	ephemeral = false
)

// registry maps each wire type to its payload. It is written once, here,
// and only read afterwards.
var registry = map[Type]typeInfo{
	TypeTurnStarted:         entry[TurnStarted](durable),
	TypeTurnFinished:        entry[TurnFinished](durable),
	TypeUserMessage:         entry[UserMessage](durable),
	TypeTextDelta:           entry[TextDelta](ephemeral),
	TypeThinkingDelta:       entry[ThinkingDelta](ephemeral),
	TypeThinkingBlock:       entry[ThinkingBlock](durable),
	TypeAssistantMessage:    entry[AssistantMessage](durable),
	TypeToolResult:          entry[ToolResult](durable),
	TypeControlMessage:      entry[ControlMessage](durable),
	TypeFinalMessage:        entry[FinalMessage](durable),
	TypeCompaction:          entry[Compaction](durable),
	TypeProgressGroupStart:  entry[ProgressGroupStart](durable),
	TypeToolAction:          entry[ToolAction](durable),
	TypeToolOutput:          entry[ToolOutput](ephemeral),
	TypeProgressGroupFinish: entry[ProgressGroupFinish](durable),
	TypeSubagentThinking:    entry[SubagentThinking](durable),
	TypeApprovalRequested:   entry[ApprovalRequested](durable),
	TypeApprovalResolved:    entry[ApprovalResolved](durable),
	TypeFilesChanged:        entry[FilesChanged](durable),
	TypeFileChangeResult:    entry[FileChangeResult](durable),
	TypeKeepUndoResult:      entry[KeepUndoResult](durable),
	TypeTokenUsage:          entry[TokenUsage](durable),
	TypeTitleChanged:        entry[TitleChanged](durable),
	TypeSessionSettings:     entry[SessionSettings](durable),
	TypeError:               entry[Error](durable),
	TypeWarning:             entry[Warning](durable),
	TypeMCPServerFailed:     entry[MCPServerFailed](durable),
	TypeStatus:              entry[Status](ephemeral),
	TypeModelRetry:          entry[ModelRetry](ephemeral),
	TypeTodoList:            entry[TodoList](durable),
	TypeHookRun:             entry[HookRun](durable),
	TypeTrustResolved:       entry[TrustResolved](durable),
}

// order is the reference order of the types (docs/events.md).
var order = []Type{
	TypeTurnStarted, TypeUserMessage, TypeTextDelta, TypeThinkingDelta, TypeThinkingBlock,
	TypeAssistantMessage, TypeToolResult, TypeControlMessage, TypeFinalMessage, TypeCompaction,
	TypeProgressGroupStart, TypeToolAction, TypeToolOutput, TypeProgressGroupFinish,
	TypeSubagentThinking, TypeApprovalRequested, TypeApprovalResolved, TypeFilesChanged,
	TypeFileChangeResult, TypeKeepUndoResult, TypeTokenUsage, TypeTitleChanged,
	TypeSessionSettings, TypeTodoList, TypeError, TypeWarning, TypeMCPServerFailed, TypeStatus, TypeModelRetry, TypeHookRun, TypeTrustResolved, TypeTurnFinished,
}

// EventType implementations.
func (TurnStarted) EventType() Type         { return TypeTurnStarted }
func (TurnFinished) EventType() Type        { return TypeTurnFinished }
func (UserMessage) EventType() Type         { return TypeUserMessage }
func (TextDelta) EventType() Type           { return TypeTextDelta }
func (ThinkingDelta) EventType() Type       { return TypeThinkingDelta }
func (ThinkingBlock) EventType() Type       { return TypeThinkingBlock }
func (AssistantMessage) EventType() Type    { return TypeAssistantMessage }
func (ToolResult) EventType() Type          { return TypeToolResult }
func (ControlMessage) EventType() Type      { return TypeControlMessage }
func (FinalMessage) EventType() Type        { return TypeFinalMessage }
func (Compaction) EventType() Type          { return TypeCompaction }
func (ProgressGroupStart) EventType() Type  { return TypeProgressGroupStart }
func (ToolAction) EventType() Type          { return TypeToolAction }
func (ToolOutput) EventType() Type          { return TypeToolOutput }
func (ProgressGroupFinish) EventType() Type { return TypeProgressGroupFinish }
func (SubagentThinking) EventType() Type    { return TypeSubagentThinking }
func (ApprovalRequested) EventType() Type   { return TypeApprovalRequested }
func (ApprovalResolved) EventType() Type    { return TypeApprovalResolved }
func (FilesChanged) EventType() Type        { return TypeFilesChanged }
func (FileChangeResult) EventType() Type    { return TypeFileChangeResult }
func (KeepUndoResult) EventType() Type      { return TypeKeepUndoResult }
func (TokenUsage) EventType() Type          { return TypeTokenUsage }
func (TitleChanged) EventType() Type        { return TypeTitleChanged }
func (SessionSettings) EventType() Type     { return TypeSessionSettings }
func (Error) EventType() Type               { return TypeError }
func (Warning) EventType() Type             { return TypeWarning }
func (MCPServerFailed) EventType() Type     { return TypeMCPServerFailed }
func (Status) EventType() Type              { return TypeStatus }
func (TodoList) EventType() Type            { return TypeTodoList }
