package rpc

import (
	"context"
	"strings"

	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
	"github.com/olly-agent/olly/rpcproto"
)

// Limits of file completion (the answers at most; workspace.FileIndex
// bounds the listing) and of prompt history.
const (
	completeMax     = 30
	historyDefault  = 100
	historyMaxLimit = 1000
)

func manageCommands() []*command {
	return []*command{
		def(rpcproto.CmdDeleteSessions, "Delete stored sessions with their events and checkpoints. The current session and sessions generating (here or in another olly) are refused, each named with why; the others are deleted.", false, runDeleteSessions),
		def(rpcproto.CmdCompleteFiles, "Workspace files matching the query, without regard to case, best first: those whose file name contains it, then those whose path contains it, then those holding its characters in order (fuzzy), shorter paths first within each; ignored files left out. What an @file completes to, the same matching as the TUI's; the listing is cached and refreshed when the workspace's directories change.", true, runCompleteFiles),
		def(rpcproto.CmdGetPromptHistory, "Prompts typed earlier in this workspace (or every one), newest first, or the ones matching a query: for recall with the arrow keys. Kept apart from the sessions: deleting a session keeps its prompts here.", false, runPromptHistory),
	}
}

func runDeleteSessions(ctx context.Context, s *Server, _ *call, req rpcproto.DeleteSessionsRequest) (rpcproto.DeleteSessionsResult, error) {
	out := rpcproto.DeleteSessionsResult{Deleted: []string{}}
	cur := s.current()
	for _, id := range req.IDs {
		id = strings.TrimSpace(id)
		if id == cur {
			out.Refused = append(out.Refused, rpcproto.SessionRefusal{SessionID: id,
				Error: "it is the current session: switch to another one (switch_session, new_session) first"})
			continue
		}
		if err := s.opts.Sessions.Delete(ctx, id); err != nil {
			out.Refused = append(out.Refused, rpcproto.SessionRefusal{SessionID: id, Error: err.Error()})
			continue
		}
		out.Deleted = append(out.Deleted, id)
	}
	return out, nil
}

func runCompleteFiles(ctx context.Context, s *Server, _ *call, req rpcproto.CompleteFilesRequest) (rpcproto.CompleteFilesResult, error) {
	sess, err := s.sessionOf(ctx)
	if err != nil {
		return rpcproto.CompleteFilesResult{}, err
	}
	ws, err := workspace.New([]string{sess.Workspace})
	if err != nil {
		return rpcproto.CompleteFilesResult{}, err
	}
	limit := completeMax
	if req.Limit > 0 {
		limit = min(req.Limit, completeMax)
	}
	files, err := s.opts.Files.Complete(ctx, ws, req.Query, limit)
	if err != nil {
		return rpcproto.CompleteFilesResult{}, err
	}
	return rpcproto.CompleteFilesResult{Files: files}, nil
}

func runPromptHistory(ctx context.Context, s *Server, _ *call, req rpcproto.PromptHistoryRequest) (rpcproto.PromptHistoryResult, error) {
	dir := ""
	if !req.All {
		sess, err := s.sessionOf(ctx)
		if err != nil {
			return rpcproto.PromptHistoryResult{}, err
		}
		dir = sess.Workspace
	}
	limit := historyDefault
	if req.Limit > 0 {
		limit = min(req.Limit, historyMaxLimit)
	}
	ps, err := s.opts.Sessions.Prompts(ctx, dir, strings.TrimSpace(req.Query), limit)
	if err != nil {
		return rpcproto.PromptHistoryResult{}, err
	}
	out := rpcproto.PromptHistoryResult{Prompts: []rpcproto.HistoryPrompt{}}
	for _, p := range ps {
		out.Prompts = append(out.Prompts, rpcproto.HistoryPrompt{Text: p.Text, Workspace: p.Workspace, At: p.At})
	}
	return out, nil
}

// pendingStore is the store's per-session count of pending changes
// (*store.Store).
type pendingStore interface {
	PendingStats(ctx context.Context) (map[string]store.DiffStats, error)
}

// addPending fills each listed session's pending changes, when the store
// counts them.
func (s *Server) addPending(ctx context.Context, list []rpcproto.Session) error {
	ps, ok := s.opts.Store.(pendingStore)
	if !ok || len(list) == 0 {
		return nil
	}
	m, err := ps.PendingStats(ctx)
	if err != nil {
		return err
	}
	for i := range list {
		if d, ok := m[list[i].ID]; ok {
			list[i].Pending = &rpcproto.DiffStats{Additions: d.Additions, Deletions: d.Deletions, Files: d.Files}
		}
	}
	return nil
}
