package event

// The approval events: a request for the person's answer, the answer, and
// what they say about where a command runs.

// Approval kinds.
const (
	ApprovalCommand   = "command"
	ApprovalFileEdit  = "file_edit"
	ApprovalDirectory = "directory" // a path outside the workspace
	ApprovalTool      = "tool"      // a call of an external (MCP) tool
)

// ApprovalRequested asks the person to approve an action. Any number may be
// pending at once.
type ApprovalRequested struct {
	ApprovalID string `json:"approvalId"`
	ActionID   string `json:"actionId,omitempty"`
	Kind       string `json:"kind"`
	// Command and Cwd for command approvals.
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// FilePath and Diff (unified) for file edits; FilePath alone for
	// directory access.
	FilePath string `json:"filePath,omitempty"`
	Diff     string `json:"diff,omitempty"`
	// Tool and Arguments (JSON) for tool approvals (an MCP server's tool).
	Tool      string `json:"tool,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// Severity is "critical", "high", "medium" or "none".
	Severity string   `json:"severity"`
	Reason   string   `json:"reason"`
	Rule     string   `json:"rule,omitempty"`
	Words    []string `json:"words,omitempty"`
	// Mode is the session's approval mode (approval.mode): "ask" (every
	// command not judged read-only asks) or "auto" (commands up to medium
	// run in the sandbox without asking). It is "ask" whatever the setting
	// says when no sandbox works on this machine.
	Mode string `json:"mode,omitempty"`
	// Sandbox says where a command runs if it is approved (command
	// approvals only).
	Sandbox *CommandSandbox `json:"sandbox,omitempty"`
}

// Approval modes (approval.mode).
const (
	ApprovalModeAsk  = "ask"
	ApprovalModeAuto = "auto"
)

// Sandbox policies: what a command may touch.
const (
	// SandboxReadOnly reads anywhere but the protected paths, writes
	// nowhere, connects nowhere: for commands judged read-only.
	SandboxReadOnly = "read-only"
	// SandboxWorkspaceWrite writes only in the workspace, the session's
	// temporary folders and the build caches; network per sandbox.network.
	SandboxWorkspaceWrite = "workspace-write"
	// SandboxUnsandboxed is not confined at all: only a person grants it.
	SandboxUnsandboxed = "unsandboxed"
)

// CommandSandbox says where an approved command runs, for the approval
// card.
type CommandSandbox struct {
	// Policy is SandboxWorkspaceWrite (approving runs the command
	// confined) or SandboxUnsandboxed (the model asked to run it outside
	// the sandbox, see Escalation: approving grants that).
	Policy string `json:"policy"`
	// Active reports whether a kernel sandbox enforces Policy on this
	// machine. False means nothing confines the command: the analysis is
	// the only guard, so read the command carefully.
	Active bool `json:"active"`
	// Mechanism names the sandbox: "landlock" (Linux), "seatbelt" (macOS),
	// or "" when none is active.
	Mechanism string `json:"mechanism,omitempty"`
	// Network reports whether the sandbox lets the command open TCP
	// connections (sandbox.network).
	Network bool `json:"network,omitempty"`
	// Escalation is the model's reason for asking to run the command
	// outside the sandbox; set when Policy is SandboxUnsandboxed.
	Escalation string `json:"escalation,omitempty"`
}

// Approval decisions.
const (
	DecisionApproved = "approved"
	DecisionDenied   = "denied"
	DecisionCanceled = "canceled"
)

// ApprovalResolved records the answer to an approval request.
type ApprovalResolved struct {
	ApprovalID string `json:"approvalId"`
	Kind       string `json:"kind"`
	Decision   string `json:"decision"`
	// AutoApproved is true when a session toggle or --yes answered.
	AutoApproved bool `json:"autoApproved,omitempty"`
	// Command is the command as approved, when the person edited it.
	Command string `json:"command,omitempty"`
	// Reason is the person's note on a denial, passed to the model.
	Reason string `json:"reason,omitempty"`
	// OutsideSandbox is true when the person approved running the command
	// outside the sandbox. Only a person's answer sets it, never an
	// automatic approval.
	OutsideSandbox bool `json:"outsideSandbox,omitempty"`
}
