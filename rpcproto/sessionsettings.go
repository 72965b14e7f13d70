package rpcproto

import "encoding/json"

// CmdSetSessionSettings sets a session's own overrides of the settings.
const CmdSetSessionSettings = "set_session_settings"

// SessionSettingsRequest is set_session_settings. A field left out is not
// changed.
type SessionSettingsRequest struct {
	ExplorerModel *string `json:"explorerModel,omitempty" doc:"the model of the session's sub-agents; \"\" goes back to agent.explorerModel"`
	// SensitiveFilePatterns replaces agent.sensitiveFilePatterns for the
	// session: any form that setting accepts.
	SensitiveFilePatterns json.RawMessage `json:"sensitiveFilePatterns,omitempty" doc:"the session's own sensitive-file rules, in any form agent.sensitiveFilePatterns takes (a list of {pattern, action}, or an object of glob: ask|auto); null goes back to the settings' rules"`
}

// FileRule is one sensitive-file rule: edits of files matching Pattern
// ask for approval (ask) or not (auto); the last match wins.
type FileRule struct {
	Pattern string `json:"pattern"`
	Action  string `json:"action" doc:"ask or auto"`
}

// SessionSettingsResult answers set_session_settings: the session's
// overrides now.
type SessionSettingsResult struct {
	SessionID     string `json:"sessionId"`
	ExplorerModel string `json:"explorerModel" doc:"\"\": agent.explorerModel (or the session's model)"`
	// SensitiveFilePatterns is nil when the settings' rules apply.
	SensitiveFilePatterns []FileRule `json:"sensitiveFilePatterns" doc:"null: the settings' rules apply"`
}
