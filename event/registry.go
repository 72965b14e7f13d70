package event

import "encoding/json"

// typeInfo is what the codec knows about one event type.
type typeInfo struct {
	durable bool
	decode  func(data []byte) (Payload, error)
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
	}}
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
	TypeStatus:              entry[Status](ephemeral),
}

// order is the reference order of the types (docs/events.md).
var order = []Type{
	TypeTurnStarted, TypeUserMessage, TypeTextDelta, TypeThinkingDelta, TypeThinkingBlock,
	TypeAssistantMessage, TypeToolResult, TypeControlMessage, TypeFinalMessage, TypeCompaction,
	TypeProgressGroupStart, TypeToolAction, TypeToolOutput, TypeProgressGroupFinish,
	TypeSubagentThinking, TypeApprovalRequested, TypeApprovalResolved, TypeFilesChanged,
	TypeFileChangeResult, TypeKeepUndoResult, TypeTokenUsage, TypeTitleChanged,
	TypeSessionSettings, TypeError, TypeWarning, TypeStatus, TypeTurnFinished,
}
