package rpcproto

import "time"

// Session is a stored session as the protocol shows it: what a session
// picker lists. The database row behind it holds more (the process that
// owns a running turn, the session memory, per-session file rules); none of
// that is on the wire.
type Session struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Workspace     string `json:"workspace"` // absolute path
	Mode          string `json:"mode"`
	Model         string `json:"model"`
	ExplorerModel string `json:"explorerModel"`
	// Status is idle, generating, error or interrupted (left generating by
	// a process that no longer runs).
	Status                    string `json:"status"`
	AutoApproveCommands       bool   `json:"autoApproveCommands"`
	AutoApproveSensitiveEdits bool   `json:"autoApproveSensitiveEdits"`
	// ParentSessionID and ForkedFromSeq say where a fork came from.
	ParentSessionID string `json:"parentSessionId,omitempty"`
	ForkedFromSeq   int64  `json:"forkedFromSeq,omitempty"`
	// LeafSeq is the tip of the current branch.
	LeafSeq int64 `json:"leafSeq"`
	// Pending counts the lines added and deleted by changes not yet kept
	// or undone (a sessions list's +N −N badge); list_sessions fills it.
	Pending   *DiffStats `json:"pending,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// QueueCounts says how many messages wait for a session's running prompt.
type QueueCounts struct {
	Steer    int `json:"steer"`
	FollowUp int `json:"followUp"`
}

// SearchResult answers search_sessions, best session first.
type SearchResult struct {
	Sessions []SessionMatch `json:"sessions"`
	// WordsOnly is true when no vectors took part; Notice says why (no
	// embedding model configured, the model failed, no vectors yet).
	WordsOnly bool   `json:"wordsOnly"`
	Notice    string `json:"notice,omitempty"`
}

// SessionMatch is one session with its best matching events.
type SessionMatch struct {
	Session Session `json:"session"`
	Score   float64 `json:"score"`
	// TitleSnippet is the highlighted title when the title matched.
	TitleSnippet string       `json:"titleSnippet,omitempty"`
	Hits         []EventMatch `json:"hits"`
}

// EventMatch is one matching event.
type EventMatch struct {
	Seq     int64     `json:"seq"`
	Turn    int       `json:"turn"`
	Type    string    `json:"type"`
	At      time.Time `json:"at"`
	Snippet string    `json:"snippet"`
	Score   float64   `json:"score"`
	// WordRank and MeaningRank are the event's 1-based places in the
	// word (BM25) and meaning (vector) rankings; 0 when absent from one.
	WordRank    int `json:"wordRank,omitempty"`
	MeaningRank int `json:"meaningRank,omitempty"`
}

// DiffStats counts lines added and deleted, and the files they are in.
type DiffStats struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Files     int `json:"files"`
}
