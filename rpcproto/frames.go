package rpcproto

import "encoding/json"

// ProtocolVersion is the version the ready frame announces. It changes
// only when a change would break a client written for the previous one;
// new commands, fields and events do not change it.
const ProtocolVersion = 1

// Frame types of the server's own frames; events carry their event type.
const (
	TypeReady    = "ready"
	TypeResponse = "response"
)

// Event families (--rpc-events): olly's own events, the pi coding agent's
// lifecycle events mapped from them, or both.
const (
	FamilyOlly = "olly"
	FamilyPi   = "pi"
	FamilyBoth = "both"
)

// Ready is the first frame the server writes: the protocol it speaks and
// the session it works on. Commands may be sent before it arrives; they are
// answered after it.
type Ready struct {
	Type            string `json:"type" doc:"always \"ready\""`
	ProtocolVersion int    `json:"protocolVersion" doc:"the protocol version (1)"`
	Version         string `json:"version" doc:"olly's version"`
	SessionID       string `json:"sessionId" doc:"the session commands act on"`
	Model           string `json:"model" doc:"the session's model (\"\" when none could be chosen: see warnings)"`
	Workspace       string `json:"workspace" doc:"the workspace directory"`
	Events          string `json:"events" doc:"the event families written: olly, pi or both"`
	// Commands lists the commands this build answers.
	Commands []string `json:"commands" doc:"every command this build answers"`
	Warnings []string `json:"warnings,omitempty" doc:"problems found at start (the model server could not be reached, …)"`
}

// Response answers one command. A command that carries an id is answered
// with the same id (a string or a number, echoed as sent).
type Response struct {
	ID      json.RawMessage `json:"id,omitempty" doc:"the command's id, as sent"`
	Type    string          `json:"type" doc:"always \"response\""`
	Command string          `json:"command" doc:"the command answered (\"parse\" when the line was not a command)"`
	Success bool            `json:"success" doc:"whether the command succeeded"`
	Data    json.RawMessage `json:"data,omitempty" doc:"the command's result (see each command)"`
	Error   string          `json:"error,omitempty" doc:"what went wrong and what to do, when success is false"`
}
