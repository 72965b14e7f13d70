package rpcproto

// Commands for trust prompts: a project's MCP servers (.mcp.json) and hook
// files (.olly/settings.json, .claude/settings.json) are programs the
// repository asks olly to run; they run only once a person trusted them.
// A client shows each waiting request with what it would run and sends the
// person's answer. Only a request that waits can be answered.
const (
	CmdGetTrustRequests = "get_trust_requests"
	CmdSetTrust         = "set_trust"
)

// Trust decisions (SetTrustRequest.Decision).
const (
	TrustDecisionTrust  = "trust"
	TrustDecisionNotNow = "not_now"
	TrustDecisionNever  = "never"
)

// TrustRequestsResult lists the project programs of the session's workspace
// that wait for a person's decision.
type TrustRequestsResult struct {
	Requests []TrustRequest `json:"requests" doc:"oldest question first; empty when nothing waits"`
}

// TrustRequest is one project program waiting for a decision, with
// exactly what it would run.
type TrustRequest struct {
	ID          string     `json:"id" doc:"what set_trust names (requestId); it changes when the program does"`
	Kind        string     `json:"kind" doc:"mcp (a server of .mcp.json) or hook (a project hook file)"`
	Name        string     `json:"name" doc:"the server's name, or the hook file's path in the workspace"`
	Source      string     `json:"source" doc:"the file asking for it"`
	Workspace   string     `json:"workspace"`
	Fingerprint string     `json:"fingerprint" doc:"SHA-256 of what runs: the trust holds only while it is unchanged"`
	Runs        []TrustRun `json:"runs" doc:"what would run"`
	Files       []string   `json:"files,omitempty" doc:"project files it runs whose content is part of the fingerprint: editing one asks again"`
}

// TrustRun is one thing a project program runs: a server's command line
// or URL, or one hook's shell command and when it runs.
type TrustRun struct {
	Event     string   `json:"event,omitempty" doc:"hook: the event it runs on"`
	Matcher   string   `json:"matcher,omitempty" doc:"hook: the tools it applies to"`
	Command   string   `json:"command,omitempty" doc:"the program (a hook's is run with bash -c)"`
	Args      []string `json:"args,omitempty"`
	Line      string   `json:"line,omitempty" doc:"server: command and args as one shell command line, words quoted as a shell needs them: what to show"`
	Env       []string `json:"env,omitempty" doc:"server: the environment it adds, NAME=value"`
	URL       string   `json:"url,omitempty" doc:"an HTTP or SSE server's address"`
	Transport string   `json:"transport,omitempty" doc:"server: stdio, http or sse"`
	Headers   []string `json:"headers,omitempty" doc:"server: the names of the headers it sends (values left out)"`
	Timeout   string   `json:"timeout,omitempty" doc:"hook: its time limit"`
}

// SetTrustRequest answers one waiting request.
type SetTrustRequest struct {
	// RequestID is not "id": a command's id is the frame's own.
	RequestID string `json:"requestId" rpc:"required" doc:"the id of a request get_trust_requests listed"`
	Decision  string `json:"decision" rpc:"required" doc:"trust (run it as it is now), not_now (not in this session) or never (never ask again while it is unchanged)"`
}
