package rpcproto

// pi's fork commands: a new session that holds the conversation before one
// of this session's prompts.
const (
	CmdFork            = "fork"
	CmdGetForkMessages = "get_fork_messages"
)

// ForkRequest is fork: copy the conversation before a prompt into a new
// session and continue there.
type ForkRequest struct {
	EntryID string `json:"entryId,omitempty" doc:"the prompt's entry (get_fork_messages), a seq as a string"`
	Seq     int64  `json:"seq,omitempty" doc:"the same as a number"`
}

// ForkResult answers fork.
type ForkResult struct {
	Text      string `json:"text" doc:"the prompt's text, to edit and send again in the new session"`
	Cancelled bool   `json:"cancelled" doc:"always false (pi extensions could cancel a fork)"`
	SessionID string `json:"sessionId" doc:"the new session, which commands now act on"`
	// ParentSessionID is the session the fork was cut from.
	ParentSessionID string `json:"parentSessionId" doc:"the session it was cut from (unchanged)"`
	Workspace       string `json:"workspace"`
	LastSeq         int64  `json:"lastSeq" doc:"the new session's last stored event; live events follow from there"`
}

// ForkMessage is a prompt a fork can be cut before.
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
	Seq     int64  `json:"seq"`
	Turn    int    `json:"turn"`
}

// ForkMessages answers get_fork_messages.
type ForkMessages struct {
	Messages []ForkMessage `json:"messages"`
}
