package app

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// What long-running frontends (RPC, web) need beyond the session service:
// the services bound to a session's workspace, and settings whose change
// must reach services already running.

// Checkpoints returns the checkpoint manager of the session's workspace:
// the same one its agent runs snapshot through, so a keep or undo never
// interleaves with the agent's write of the same file.
func (a *App) Checkpoints(ctx context.Context, sessionID string) (*checkpoint.Manager, error) {
	sess, err := a.Sessions.Open(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.New([]string{sess.Workspace})
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", sessionID, err)
	}
	sp, err := a.spaceFor(ws)
	if err != nil {
		return nil, err
	}
	return sp.checkpoints, nil
}

// SetAutoApprove changes the session's auto-approve toggles (nil leaves
// one as it is): stored on the session and recorded as session_settings,
// and applied at once to the approvals it asks from now on — also in a
// turn already running.
func (a *App) SetAutoApprove(ctx context.Context, sessionID string, commands, sensitiveEdits *bool) (*store.Session, error) {
	sess, err := a.Sessions.ChangeSettings(ctx, sessionID, event.SessionSettings{
		AutoApproveCommands: commands, AutoApproveSensitiveEdits: sensitiveEdits,
	})
	if err != nil {
		return nil, err
	}
	a.Approvals.SetPolicy(sessionID, a.sessionPolicy(sess))
	return sess, nil
}
