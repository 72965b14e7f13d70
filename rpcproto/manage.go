package rpcproto

import "time"

// Commands for what a sessions panel and a prompt box do besides prompting:
// delete stored sessions, complete @file names, recall earlier prompts.
const (
	CmdDeleteSessions   = "delete_sessions"
	CmdCompleteFiles    = "complete_files"
	CmdGetPromptHistory = "get_prompt_history"
)

// DeleteSessionsRequest names the sessions to delete.
type DeleteSessionsRequest struct {
	IDs []string `json:"ids" rpc:"required" doc:"the sessions to delete (list_sessions lists them); the current one and generating ones are refused"`
}

// DeleteSessionsResult lists what was deleted and what was refused, each
// with the reason.
type DeleteSessionsResult struct {
	Deleted []string         `json:"deleted"`
	Refused []SessionRefusal `json:"refused,omitempty" doc:"the sessions not deleted, each with why"`
}

// SessionRefusal is a session a command left alone, and why.
type SessionRefusal struct {
	SessionID string `json:"sessionId"`
	Error     string `json:"error"`
}

// CompleteFilesRequest asks for workspace files matching what was typed
// after an @.
type CompleteFilesRequest struct {
	Query string `json:"query" doc:"what was typed after the @, matched without regard to case (see above); empty lists the shortest paths"`
	Limit int    `json:"limit,omitempty" doc:"at most this many (default and maximum 30)"`
}

// CompleteFilesResult lists the matching files, best match first.
type CompleteFilesResult struct {
	Files []string `json:"files" doc:"workspace-relative paths, best match first, ignored files left out"`
}

// PromptHistoryRequest asks for prompts typed earlier.
type PromptHistoryRequest struct {
	Query string `json:"query,omitempty" doc:"only prompts with every word (as prefixes), best first; empty: most recent first"`
	All   bool   `json:"all,omitempty" doc:"every workspace's prompts, not only the current session's workspace"`
	Limit int    `json:"limit,omitempty" doc:"at most this many (default 100, maximum 1000)"`
}

// PromptHistoryResult lists prompts, newest (or best) first.
type PromptHistoryResult struct {
	Prompts []HistoryPrompt `json:"prompts"`
}

// HistoryPrompt is one prompt of the history.
type HistoryPrompt struct {
	Text      string    `json:"text"`
	Workspace string    `json:"workspace,omitempty"`
	At        time.Time `json:"at"`
}
