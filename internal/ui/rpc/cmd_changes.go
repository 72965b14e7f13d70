package rpc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

func changeCommands() []*command {
	return []*command{
		def(rpcproto.CmdApprove, "Approve a pending approval request (approval_requested); for a command, command runs an edited command instead. Any number of requests may be pending; each is answered by its id.", false, runApprove),
		def(rpcproto.CmdDeny, "Deny a pending approval request; reason is passed to the agent.", false, runDeny),
		def(rpcproto.CmdSetAutoApprove, "Change the session's auto-approve toggles (stored on the session, applied at once, also to the running turn). Critical actions always ask.", false, runSetAutoApprove),
		def(rpcproto.CmdListChanges, "The session's file changes not yet kept or undone: each agent run (checkpoint) with its files, and each file with its numbered hunks.", false, runListChanges),
		def(rpcproto.CmdKeep, "Keep changes: a hunk of a file (path and hunk), a file (path), or every pending change (all). Keeping never touches the file on disk.", false,
			func(ctx context.Context, s *Server, _ *call, req rpcproto.ChangeRequest) (rpcproto.ChangeResult, error) {
				return s.change(ctx, checkpoint.ActionKeep, req)
			}),
		def(rpcproto.CmdUndo, "Undo changes: a hunk of a file (path and hunk), a file (path), or every pending change (all), newest run first. A change is undone only where the file still holds what the agent wrote; the rest are returned as conflicts.", false,
			func(ctx context.Context, s *Server, _ *call, req rpcproto.ChangeRequest) (rpcproto.ChangeResult, error) {
				return s.change(ctx, checkpoint.ActionUndo, req)
			}),
		def(rpcproto.CmdReviewNavigate, "Move through the pending changes (\"change X of Y\"): next, prev, next_file, prev_file, first, last, or focus a file.", false, runNavigate),
	}
}

func runApprove(_ context.Context, s *Server, _ *call, req rpcproto.ApproveRequest) (rpcproto.ApprovalResult, error) {
	if err := s.opts.Approvals.Answer(s.current(), req.ApprovalID, approval.Answer{Approve: true, Command: req.Command, OutsideSandbox: req.OutsideSandbox}); err != nil {
		return rpcproto.ApprovalResult{}, err
	}
	return rpcproto.ApprovalResult{ApprovalID: req.ApprovalID, Decision: event.DecisionApproved}, nil
}

func runDeny(_ context.Context, s *Server, _ *call, req rpcproto.DenyRequest) (rpcproto.ApprovalResult, error) {
	if err := s.opts.Approvals.Answer(s.current(), req.ApprovalID, approval.Answer{Reason: req.Reason}); err != nil {
		return rpcproto.ApprovalResult{}, err
	}
	return rpcproto.ApprovalResult{ApprovalID: req.ApprovalID, Decision: event.DecisionDenied}, nil
}

func runSetAutoApprove(ctx context.Context, s *Server, _ *call, req rpcproto.AutoApproveRequest) (rpcproto.AutoApprove, error) {
	if s.opts.SetAutoApprove == nil {
		return rpcproto.AutoApprove{}, errUnavailable("set_auto_approve", "no approval settings")
	}
	if req.Commands == nil && req.SensitiveEdits == nil {
		return rpcproto.AutoApprove{}, errors.New("give commands, sensitiveEdits or both (true or false)")
	}
	sess, err := s.opts.SetAutoApprove(ctx, s.current(), req.Commands, req.SensitiveEdits)
	if err != nil {
		return rpcproto.AutoApprove{}, err
	}
	return rpcproto.AutoApprove{Commands: sess.AutoApproveCommands, SensitiveEdits: sess.AutoApproveSensitiveEdits}, nil
}

// review returns the checkpoint manager of the current session's
// workspace and the client's review of that session, with the ids of the
// session's pending checkpoints.
func (s *Server) review(ctx context.Context) (string, *checkpoint.Manager, *checkpoint.ReviewSession, []string, error) {
	if s.opts.Checkpoints == nil {
		return "", nil, nil, nil, errUnavailable("reviewing changes", "no checkpoints")
	}
	id := s.current()
	m, err := s.opts.Checkpoints(ctx, id)
	if err != nil {
		return "", nil, nil, nil, err
	}
	cps, err := m.Pending(ctx, id)
	if err != nil {
		return "", nil, nil, nil, err
	}
	ids := make([]string, len(cps))
	for i, c := range cps {
		ids[i] = c.ID
	}
	s.mu.Lock()
	rs := s.reviews[id]
	if rs == nil {
		rs = m.NewReviewSession()
		s.reviews[id] = rs
	}
	s.mu.Unlock()
	return id, m, rs, ids, nil
}

func runListChanges(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.Changes, error) {
	id, m, rs, _, err := s.review(ctx)
	if err != nil {
		return rpcproto.Changes{}, err
	}
	ch, err := m.SessionChanges(ctx, id)
	if err != nil {
		return rpcproto.Changes{}, err
	}
	out := rpcproto.Changes{SessionID: id, Checkpoints: each(ch.Checkpoints, wireCheckpoint), Files: []rpcproto.FileReview{},
		Additions: ch.Pending.Additions, Deletions: ch.Pending.Deletions}
	pos, err := rs.Start(ctx, ch.IDs()...)
	if err != nil {
		return rpcproto.Changes{}, err
	}
	out.Position = wirePosition(pos)
	if files := rs.Files(); files != nil {
		out.Files = each(files, wireFileReview)
	}
	return out, nil
}

// change keeps or undoes what req selects.
func (s *Server) change(ctx context.Context, action string, req rpcproto.ChangeRequest) (rpcproto.ChangeResult, error) {
	path := strings.TrimSpace(req.Path)
	switch {
	case path != "" && req.All:
		return rpcproto.ChangeResult{}, errors.New("give path or all, not both")
	case path == "" && !req.All:
		return rpcproto.ChangeResult{}, fmt.Errorf("say what to %s: a path (with a hunk, or the whole file), or all", action)
	case req.Hunk < 0:
		return rpcproto.ChangeResult{}, fmt.Errorf("field hunk: %d; hunks are numbered from 1 (list_changes numbers them)", req.Hunk)
	case req.Hunk > 0 && path == "":
		return rpcproto.ChangeResult{}, errors.New("field hunk needs path: hunk numbers belong to one file")
	}
	id, m, rs, ids, err := s.review(ctx)
	if err != nil {
		return rpcproto.ChangeResult{}, err
	}
	if path != "" {
		path = snapshotPath(m, path)
	}
	out := rpcproto.ChangeResult{Outcomes: []rpcproto.Outcome{}, Conflicts: []rpcproto.Conflict{}}
	if req.Hunk > 0 {
		// Hunk numbers are the review's: the file's newest pending run.
		if _, err := rs.Start(ctx, ids...); err != nil {
			return rpcproto.ChangeResult{}, err
		}
		act := rs.Keep
		if action == checkpoint.ActionUndo {
			act = rs.Undo
		}
		o, pos, err := act(ctx, path, req.Hunk)
		if err != nil {
			return rpcproto.ChangeResult{}, err
		}
		out.Outcomes, out.Conflicts, out.Position = append(out.Outcomes, wireOutcome(*o)), append(out.Conflicts, each(o.Conflicts(), wireConflict)...), wirePosition(pos)
		return out, nil
	}
	outs, opErr := m.ApplySession(ctx, id, action, path)
	for _, o := range outs {
		out.Outcomes = append(out.Outcomes, wireOutcome(o))
		out.Conflicts = append(out.Conflicts, each(o.Conflicts(), wireConflict)...)
	}
	if opErr != nil && len(outs) == 0 {
		return rpcproto.ChangeResult{}, opErr
	}
	// What is pending now: the review starts again from it.
	cps, err := m.Pending(ctx, id)
	if err != nil {
		return rpcproto.ChangeResult{}, err
	}
	ids = ids[:0]
	for _, c := range cps {
		ids = append(ids, c.ID)
	}
	pos, err := rs.Start(ctx, ids...)
	if err != nil {
		return rpcproto.ChangeResult{}, err
	}
	out.Position = wirePosition(pos)
	return out, opErr
}

// snapshotPath turns a client's path into the form the review uses:
// workspace-relative with forward slashes (absolute when outside).
func snapshotPath(m *checkpoint.Manager, p string) string {
	if filepath.IsAbs(p) {
		return m.RelPath(p)
	}
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
}

// moves maps review_navigate's move names.
var moves = map[string]checkpoint.Move{
	"next": checkpoint.NextChange, "prev": checkpoint.PrevChange, "next_file": checkpoint.NextFile,
	"prev_file": checkpoint.PrevFile, "first": checkpoint.FirstChange, "last": checkpoint.LastChange,
}

func runNavigate(ctx context.Context, s *Server, _ *call, req rpcproto.NavigateRequest) (rpcproto.Review, error) {
	_, m, rs, ids, err := s.review(ctx)
	if err != nil {
		return rpcproto.Review{}, err
	}
	var pos checkpoint.ChangePosition
	switch mv, ok := moves[req.Move]; {
	case req.Move == "focus":
		if strings.TrimSpace(req.Path) == "" {
			return rpcproto.Review{}, errors.New("focus needs path: the file to show")
		}
		if _, err := rs.Navigate(ctx, checkpoint.FirstChange, ids...); err != nil {
			return rpcproto.Review{}, err
		}
		pos, err = rs.Focus(ctx, snapshotPath(m, req.Path))
	case ok:
		pos, err = rs.Navigate(ctx, mv, ids...)
	default:
		return rpcproto.Review{}, fmt.Errorf("field move: %q is not next, prev, next_file, prev_file, first, last or focus", req.Move)
	}
	if err != nil {
		return rpcproto.Review{}, err
	}
	out := rpcproto.Review{Position: wirePosition(pos)}
	for _, f := range rs.Files() {
		if f.Path == pos.FilePath && f.CheckpointID == pos.CheckpointID {
			wf := wireFileReview(f)
			out.File = &wf
			for i := range wf.Hunks {
				if wf.Hunks[i].Number == pos.Hunk {
					out.Hunk = &wf.Hunks[i]
				}
			}
			break
		}
	}
	return out, nil
}
