package rpcproto

import "encoding/json"

// The pi coding agent's lifecycle events (pi-mono / oh-my-pi
// packages/agent AgentEvent), with that protocol's field names, so clients
// written for `pi --mode rpc` can follow olly unchanged. olly maps its own
// events onto them (internal/ui/rpc, pimap.go): one olly turn (a prompt) is one pi agent run
// (agent_start … agent_end); one olly iteration (a model response and its
// tool calls) is one pi turn (turn_start … turn_end).

// Pi event types.
const (
	PiAgentStart          = "agent_start"
	PiAgentEnd            = "agent_end"
	PiTurnStart           = "turn_start"
	PiTurnEnd             = "turn_end"
	PiMessageStart        = "message_start"
	PiMessageUpdate       = "message_update"
	PiMessageEnd          = "message_end"
	PiToolExecutionStart  = "tool_execution_start"
	PiToolExecutionUpdate = "tool_execution_update"
	PiToolExecutionEnd    = "tool_execution_end"
)

// PiTypes lists the pi event types olly writes, in the reference order.
func PiTypes() []string {
	return []string{PiAgentStart, PiTurnStart, PiMessageStart, PiMessageUpdate, PiMessageEnd,
		PiToolExecutionStart, PiToolExecutionUpdate, PiToolExecutionEnd, PiTurnEnd, PiAgentEnd}
}

// Pi message roles and stop reasons.
const (
	PiRoleUser       = "user"
	PiRoleAssistant  = "assistant"
	PiRoleToolResult = "toolResult"

	PiStopStop    = "stop"
	PiStopToolUse = "toolUse"
	PiStopError   = "error"
	PiStopAborted = "aborted"
)

// PiContent is one block of a message: text, thinking or a tool call.
type PiContent struct {
	Type      string          `json:"type" doc:"text, thinking or toolCall"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty" doc:"a tool call's id"`
	Name      string          `json:"name,omitempty" doc:"a tool call's tool"`
	Arguments json.RawMessage `json:"arguments,omitempty" doc:"a tool call's arguments (an object)"`
}

// PiUsage is an assistant message's token use. olly runs local models:
// the cost is always zero.
type PiUsage struct {
	Input       int    `json:"input"`
	Output      int    `json:"output"`
	CacheRead   int    `json:"cacheRead"`
	CacheWrite  int    `json:"cacheWrite"`
	TotalTokens int    `json:"totalTokens"`
	Cost        PiCost `json:"cost"`
}

// PiCost is what a message cost, in dollars.
type PiCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// PiMessage is a message of the conversation (pi's AgentMessage): a user
// message, an assistant message or a tool result.
type PiMessage struct {
	Role    string      `json:"role" doc:"user, assistant or toolResult"`
	Content []PiContent `json:"content"`
	// Assistant messages.
	API          string   `json:"api,omitempty"`
	Provider     string   `json:"provider,omitempty"`
	Model        string   `json:"model,omitempty"`
	Usage        *PiUsage `json:"usage,omitempty"`
	StopReason   string   `json:"stopReason,omitempty" doc:"stop, length, toolUse, error or aborted"`
	ErrorMessage string   `json:"errorMessage,omitempty"`
	// Tool results.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    *bool  `json:"isError,omitempty"`
	// Timestamp is Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
}

// Clone copies m deeply enough that later changes to the original do not
// show in it (the server writes events after more deltas arrived).
func (m *PiMessage) Clone() *PiMessage {
	if m == nil {
		return nil
	}
	c := *m
	c.Content = append([]PiContent(nil), m.Content...)
	if m.Usage != nil {
		u := *m.Usage
		c.Usage = &u
	}
	return &c
}

// PiAssistantEvent is a streaming step of an assistant message
// (message_update's assistantMessageEvent).
type PiAssistantEvent struct {
	Type         string     `json:"type" doc:"start, text_start, text_delta, text_end, thinking_start, thinking_delta, thinking_end, toolcall_start, toolcall_end, done or error"`
	ContentIndex *int       `json:"contentIndex,omitempty" doc:"the content block the step belongs to"`
	Delta        string     `json:"delta,omitempty" doc:"new text (deltas)"`
	Content      string     `json:"content,omitempty" doc:"the block's whole text (text_end, thinking_end)"`
	ToolCall     *PiContent `json:"toolCall,omitempty" doc:"the complete call (toolcall_end)"`
	Reason       string     `json:"reason,omitempty" doc:"why the message ended (done: stop, length, toolUse; error: error, aborted)"`
	Partial      *PiMessage `json:"partial,omitempty" doc:"the message so far"`
	Message      *PiMessage `json:"message,omitempty" doc:"the finished message (done)"`
	Error        *PiMessage `json:"error,omitempty" doc:"the message as it ended (error)"`
}

// PiToolResult is a tool's result or partial result.
type PiToolResult struct {
	Content []PiContent    `json:"content"`
	Details map[string]any `json:"details"`
}

// PiAgentStartEvent opens an agent run (an olly turn).
type PiAgentStartEvent struct {
	Type string `json:"type"`
}

// PiAgentEndEvent closes an agent run with every message it produced.
type PiAgentEndEvent struct {
	Type     string      `json:"type"`
	Messages []PiMessage `json:"messages"`
}

// PiTurnStartEvent opens a pi turn (an olly iteration).
type PiTurnStartEvent struct {
	Type string `json:"type"`
}

// PiTurnEndEvent closes a pi turn: its assistant message and the results
// of its tool calls.
type PiTurnEndEvent struct {
	Type        string      `json:"type"`
	Message     *PiMessage  `json:"message"`
	ToolResults []PiMessage `json:"toolResults"`
}

// PiMessageEvent is message_start or message_end.
type PiMessageEvent struct {
	Type    string     `json:"type"`
	Message *PiMessage `json:"message"`
}

// PiMessageUpdateEvent is a streaming step of an assistant message.
type PiMessageUpdateEvent struct {
	Type                  string            `json:"type"`
	Message               *PiMessage        `json:"message"`
	AssistantMessageEvent *PiAssistantEvent `json:"assistantMessageEvent"`
}

// PiToolExecutionStartEvent: a tool call starts running.
type PiToolExecutionStartEvent struct {
	Type       string          `json:"type"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
}

// PiToolExecutionUpdateEvent carries a running call's output so far (all
// of it, not just the new part: a client replaces what it shows).
type PiToolExecutionUpdateEvent struct {
	Type          string          `json:"type"`
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args"`
	PartialResult *PiToolResult   `json:"partialResult"`
}

// PiToolExecutionEndEvent: a tool call ended.
type PiToolExecutionEndEvent struct {
	Type       string        `json:"type"`
	ToolCallID string        `json:"toolCallId"`
	ToolName   string        `json:"toolName"`
	Result     *PiToolResult `json:"result"`
	IsError    bool          `json:"isError"`
}
