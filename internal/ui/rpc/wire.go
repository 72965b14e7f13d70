package rpc

import (
	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

// Conversions from what the services return to the protocol's types:
// nothing of the store's rows goes on the wire as it is. Where the two
// types have the same fields, a struct conversion is used, so a field added
// to one and not the other fails to compile instead of silently going
// missing.

// wireSession is a stored session as a client sees it: without the owner
// process, session memory and file rules the row also holds.
func wireSession(s store.Session) rpcproto.Session {
	return rpcproto.Session{ID: s.ID, Title: s.Title, Workspace: s.Workspace, Mode: s.Mode, Model: s.Model,
		ExplorerModel: s.ExplorerModel, Status: string(s.Status),
		AutoApproveCommands: s.AutoApproveCommands, AutoApproveSensitiveEdits: s.AutoApproveSensitiveEdits,
		ParentSessionID: s.ParentSessionID, ForkedFromSeq: s.ForkedFromSeq, LeafSeq: s.LeafSeq,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// each converts a slice element by element; nil stays nil, so a list
// the server wrote as null before is null still (the wire does not change).
func each[S, T any](in []S, conv func(S) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = conv(v)
	}
	return out
}

func wireSearch(r *store.SearchResult) *rpcproto.SearchResult {
	if r == nil {
		return nil
	}
	return &rpcproto.SearchResult{WordsOnly: r.WordsOnly, Notice: r.Notice,
		Sessions: each(r.Sessions, func(m store.SessionMatch) rpcproto.SessionMatch {
			return rpcproto.SessionMatch{Session: wireSession(m.Session), Score: m.Score, TitleSnippet: m.TitleSnippet,
				Hits: each(m.Hits, func(h store.EventMatch) rpcproto.EventMatch {
					return rpcproto.EventMatch{Seq: h.Seq, Turn: h.Turn, Type: h.Type, At: h.At, Snippet: h.Snippet,
						Score: h.Score, WordRank: h.WordRank, MeaningRank: h.MeaningRank}
				})}
		})}
}

func wireQueue(q session.QueueCounts) rpcproto.QueueCounts { return rpcproto.QueueCounts(q) }

func wirePosition(p checkpoint.ChangePosition) rpcproto.ChangePosition {
	return rpcproto.ChangePosition(p)
}

func wireCheckpoint(c checkpoint.CheckpointStats) rpcproto.CheckpointStats {
	return rpcproto.CheckpointStats{ID: c.ID, SessionID: c.SessionID, Turn: c.Turn, Status: string(c.Status),
		TotalAdditions: c.TotalAdditions, TotalDeletions: c.TotalDeletions, CreatedAt: c.CreatedAt,
		Files: each(c.Files, func(f checkpoint.FileStats) rpcproto.FileStats {
			return rpcproto.FileStats{Path: f.Path, Action: f.Action, Status: string(f.Status),
				Additions: f.Additions, Deletions: f.Deletions}
		})}
}

func wireFileReview(f checkpoint.FileReview) rpcproto.FileReview {
	hunks := each(f.Hunks, func(h checkpoint.Hunk) rpcproto.Hunk { return rpcproto.Hunk(h) })
	return rpcproto.FileReview{CheckpointID: f.CheckpointID, Path: f.Path, Action: f.Action,
		Additions: f.Additions, Deletions: f.Deletions, Binary: f.Binary, Deleted: f.Deleted, Hunks: hunks,
		EarlierCheckpoints: f.EarlierCheckpoints}
}

func wireConflict(c checkpoint.Conflict) rpcproto.Conflict { return rpcproto.Conflict(c) }

func wireOutcome(o checkpoint.Outcome) rpcproto.Outcome {
	files := each(o.Files, func(f checkpoint.FileOutcome) rpcproto.FileOutcome {
		return rpcproto.FileOutcome{Path: f.Path, Action: f.Action, Hunk: f.Hunk, Resolved: f.Resolved,
			Status: string(f.Status), Applied: f.Applied, Additions: f.Additions, Deletions: f.Deletions,
			Conflicts: each(f.Conflicts, wireConflict)}
	})
	return rpcproto.Outcome{Action: o.Action, CheckpointID: o.CheckpointID, Status: string(o.Status), Files: files}
}
