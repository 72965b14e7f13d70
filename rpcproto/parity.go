package rpcproto

// pi's commands for models, thinking, queues and retries.
const (
	CmdCycleModel         = "cycle_model"
	CmdSetThinkingLevel   = "set_thinking_level"
	CmdCycleThinkingLevel = "cycle_thinking_level"
	CmdAbortAndPrompt     = "abort_and_prompt"
	CmdSetSteeringMode    = "set_steering_mode"
	CmdSetFollowUpMode    = "set_follow_up_mode"
	CmdSetInterruptMode   = "set_interrupt_mode"
	CmdSetAutoRetry       = "set_auto_retry"
	CmdAbortRetry         = "abort_retry"
)

// CycleModelResult answers cycle_model (null when there is no other
// model to cycle to).
type CycleModelResult struct {
	Model         PiModel `json:"model" doc:"the session's model now"`
	ThinkingLevel string  `json:"thinkingLevel" doc:"the session's thinking level"`
	IsScoped      bool    `json:"isScoped" doc:"always false: olly cycles through every enabled model"`
}

// ThinkingLevelRequest is set_thinking_level.
type ThinkingLevelRequest struct {
	Level string `json:"level" rpc:"required" doc:"off, minimal, low, medium, high or xhigh"`
}

// ThinkingLevelResult answers cycle_thinking_level (null when the model
// cannot think).
type ThinkingLevelResult struct {
	Level string `json:"level" doc:"the session's thinking level now"`
}

// QueueModeRequest is set_steering_mode and set_follow_up_mode.
type QueueModeRequest struct {
	Mode string `json:"mode" rpc:"required" doc:"all or one-at-a-time"`
}

// InterruptModeRequest is set_interrupt_mode.
type InterruptModeRequest struct {
	Mode string `json:"mode" rpc:"required" doc:"immediate or wait"`
}
