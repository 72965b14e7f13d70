package event

// TypeHookRun is one run of a hook (internal/hooks): the person's command
// on SessionStart, UserPromptSubmit, PreToolUse, PostToolUse or Stop.
const TypeHookRun Type = "hook_run"

// HookRun reports one hook run, so every program olly starts on the
// person's behalf is visible: which, where it was configured, how it ended
// and whether it blocked.
type HookRun struct {
	// Event is the hook event: SessionStart, UserPromptSubmit,
	// PreToolUse, PostToolUse or Stop.
	Event string `json:"event"`
	// Command is the hook's command line.
	Command string `json:"command"`
	// Source is the settings file it came from.
	Source string `json:"source"`
	// Tool is the tool name the hook saw (PreToolUse, PostToolUse).
	Tool string `json:"tool,omitempty"`
	// ExitCode is the command's exit status; -1 when it did not exit on
	// its own (timed out, could not start).
	ExitCode   int   `json:"exitCode"`
	DurationMs int64 `json:"durationMs"`
	// Blocked is set when the hook blocked (exit code 2, or a JSON
	// decision to block or deny).
	Blocked bool `json:"blocked,omitempty"`
	// Reason is the block reason or, for a failed hook, its error output
	// (capped).
	Reason string `json:"reason,omitempty"`
	// TimedOut is set when the hook ran past its timeout and was killed.
	TimedOut bool `json:"timedOut,omitempty"`
}

// EventType implements Payload.
func (HookRun) EventType() Type { return TypeHookRun }
