package event

// Mode is the mode a turn runs in (TurnStarted.Mode, UserMessage.Mode,
// SessionSettings.Mode). Every mode runs the same agent loop; a mode is
// data — its tools, prompt, iteration cap and gates — kept in the agent's
// mode table. On the wire a Mode is its string.
type Mode string

// The modes.
const (
	ModeAgent            Mode = "agent"
	ModeExplore          Mode = "explore"
	ModePlan             Mode = "plan"
	ModeReview           Mode = "review"
	ModeSecurityReview   Mode = "security-review"
	ModeDeepExplore      Mode = "deep-explore"
	ModeDeepExploreWrite Mode = "deep-explore-write"
	ModeChat             Mode = "chat"
	// ModeBash is the mode of a turn that runs a command the person typed
	// (the RPC bash command, print mode's !command).
	ModeBash Mode = "bash"
)
