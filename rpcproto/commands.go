package rpcproto

// The command names: a command line's "type". Each names its request and
// result types in docs/rpc.md.
const (
	CmdPrompt               = "prompt"
	CmdSteer                = "steer"
	CmdFollowUp             = "follow_up"
	CmdAbort                = "abort"
	CmdCompact              = "compact"
	CmdSetAutoCompaction    = "set_auto_compaction"
	CmdBash                 = "bash"
	CmdAbortBash            = "abort_bash"
	CmdNewSession           = "new_session"
	CmdSwitchSession        = "switch_session"
	CmdBranch               = "branch"
	CmdSetSessionName       = "set_session_name"
	CmdSetModel             = "set_model"
	CmdSetMode              = "set_mode"
	CmdExportHTML           = "export_html"
	CmdApprove              = "approve"
	CmdDeny                 = "deny"
	CmdSetAutoApprove       = "set_auto_approve"
	CmdListChanges          = "list_changes"
	CmdKeep                 = "keep"
	CmdUndo                 = "undo"
	CmdReviewNavigate       = "review_navigate"
	CmdGetState             = "get_state"
	CmdGetMessages          = "get_messages"
	CmdGetLastAssistantText = "get_last_assistant_text"
	CmdGetBranchMessages    = "get_branch_messages"
	CmdGetSessionStats      = "get_session_stats"
	CmdGetAvailableModels   = "get_available_models"
	CmdGetCommands          = "get_commands"
	CmdGetEvents            = "get_events"
	CmdListSessions         = "list_sessions"
	CmdSearchSessions       = "search_sessions"
)

// CmdParse names the response to a line that is not a command at all.
const CmdParse = "parse"
