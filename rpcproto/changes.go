package rpcproto

import "time"

// The review of an agent's changes (list_changes, keep, undo,
// review_navigate), as the checkpoint manager reports it.

// CheckpointStats are a checkpoint (one agent run's changes) with its
// files and pending totals.
type CheckpointStats struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	// Status is pending, kept, undone or partial.
	Status         string      `json:"status"`
	TotalAdditions int         `json:"totalAdditions"`
	TotalDeletions int         `json:"totalDeletions"`
	CreatedAt      time.Time   `json:"createdAt"`
	Files          []FileStats `json:"files"`
}

// FileStats are one file's line counts in a checkpoint.
type FileStats struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created | modified
	// Status is where the file's review stands: pending, kept, undone or
	// partial.
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// FileReview is one file with changes left to review.
type FileReview struct {
	CheckpointID string `json:"checkpointId"`
	Path         string `json:"path"`
	Action       string `json:"action"` // created | modified
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	// Binary files (and files over 4 MB) are kept or undone as a whole.
	Binary bool `json:"binary,omitempty"`
	// Deleted is true when the file is no longer on disk.
	Deleted bool   `json:"deleted,omitempty"`
	Hunks   []Hunk `json:"hunks"`
	// EarlierCheckpoints are older checkpoints of the review with pending
	// changes to the same file; they come up once this one is resolved.
	EarlierCheckpoints []string `json:"earlierCheckpoints,omitempty"`
}

// Hunk is one change left to review in a file.
type Hunk struct {
	// Number is the 1-based hunk number keep and undo take.
	Number int `json:"number"`
	// OldStart is the 1-based line of the original the hunk replaces from
	// (for a pure insertion, the line it goes before); OldLines how many.
	OldStart int `json:"oldStart"`
	OldLines int `json:"oldLines"`
	// NewStart and NewLines place the hunk's lines in the current file
	// (in what the agent wrote, when Stale).
	NewStart int `json:"newStart"`
	NewLines int `json:"newLines"`
	// OldText is what undo puts back, NewText what the agent wrote.
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
	// ContextBefore and ContextAfter are up to three unchanged lines either
	// side, for display.
	ContextBefore string `json:"contextBefore,omitempty"`
	ContextAfter  string `json:"contextAfter,omitempty"`
	// WholeFile marks the single change of a file kept or undone only as a
	// whole (binary, over 4 MB, or an empty new file); it has no text.
	WholeFile bool `json:"wholeFile,omitempty"`
	// Stale is true when the current file no longer holds the hunk as the
	// agent wrote it: undo would report Reason as a conflict.
	Stale  bool   `json:"stale,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ChangePosition is what a "change X of Y" counter shows.
type ChangePosition struct {
	// Current is X (1-based), 0 when nothing is left to review.
	Current int `json:"current"`
	Total   int `json:"total"`
	// FilePath, CheckpointID and Hunk (1-based) name the current change.
	FilePath     string `json:"filePath,omitempty"`
	CheckpointID string `json:"checkpointId,omitempty"`
	Hunk         int    `json:"hunk,omitempty"`
}

// Outcome is what a keep or undo did in one checkpoint.
type Outcome struct {
	Action       string `json:"action"` // keep | undo
	CheckpointID string `json:"checkpointId"`
	// Status is the checkpoint's status afterwards.
	Status string        `json:"status"`
	Files  []FileOutcome `json:"files"`
}

// FileOutcome is what a keep or undo did to one file.
type FileOutcome struct {
	Path   string `json:"path"`
	Action string `json:"fileAction"` // created | modified
	// Hunk is the hunk acted on, 0 for the whole file.
	Hunk int `json:"hunk,omitempty"`
	// Resolved is true when nothing is left to review in the file; Status
	// then says how it ended.
	Resolved bool   `json:"resolved"`
	Status   string `json:"status"`
	// Applied counts the changes this operation kept or undone.
	Applied int `json:"applied"`
	// Additions and Deletions are what is left to review.
	Additions int        `json:"additions"`
	Deletions int        `json:"deletions"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// Conflict is a change undo left in place because the file no longer holds
// what the agent wrote there.
type Conflict struct {
	Path string `json:"path"`
	// Hunk is the 1-based hunk number, 0 for the whole file.
	Hunk   int    `json:"hunk,omitempty"`
	Reason string `json:"reason"`
}
