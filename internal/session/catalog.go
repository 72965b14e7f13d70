package session

import (
	"context"

	"github.com/olly-agent/olly/internal/store"
)

// Catalog finds and removes sessions (*store.Store).
type Catalog interface {
	ListSessions(ctx context.Context, f store.ListFilter) ([]store.Session, error)
	LatestSession(ctx context.Context, workspace string) (*store.Session, error)
	DeleteSession(ctx context.Context, id string) error
	SessionPendingStats(ctx context.Context, session string) (store.DiffStats, error)
}

// Branching moves through a session's tree of events (*store.Store).
type Branching interface {
	Event(ctx context.Context, session string, seq int64) (*store.EventRecord, error)
	SetLeaf(ctx context.Context, session string, seq int64) error
	Fork(ctx context.Context, session string, atSeq int64, newID string) (*store.Session, error)
}

// PromptLog is the prompt history (*store.Store): what the person typed,
// kept apart from the sessions for recall (seed 002, "Prompt history is
// separate").
type PromptLog interface {
	AddPrompt(ctx context.Context, text, workspace string) (bool, error)
	RecentPrompts(ctx context.Context, workspace string, limit int) ([]store.Prompt, error)
	SearchPrompts(ctx context.Context, query, workspace string, limit int) ([]store.Prompt, error)
}
