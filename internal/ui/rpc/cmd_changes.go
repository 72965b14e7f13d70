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
)

func changeCommands() []*command {
	return []*command{
		def("approve", "Approve a pending approval request (approval_requested); for a command, command runs an edited command instead. Any number of requests may be pending; each is answered by its id.", false, runApprove),
		def("deny", "Deny a pending approval request; reason is passed to the agent.", false, runDeny),
		def("set_auto_approve", "Change the session's auto-approve toggles (stored on the session, applied at once, also to the running turn). Critical actions always ask.", false, runSetAutoApprove),
		def("list_changes", "The session's file changes not yet kept or undone: each agent run (checkpoint) with its files, and each file with its numbered hunks.", false, runListChanges),
		def("keep", "Keep changes: a hunk of a file (path and hunk), a file (path), or every pending change (all). Keeping never touches the file on disk.", false,
			func(ctx context.Context, s *Server, _ *call, req ChangeRequest) (ChangeResult, error) {
				return s.change(ctx, checkpoint.ActionKeep, req)
			}),
		def("undo", "Undo changes: a hunk of a file (path and hunk), a file (path), or every pending change (all), newest run first. A change is undone only where the file still holds what the agent wrote; the rest are returned as conflicts.", false,
			func(ctx context.Context, s *Server, _ *call, req ChangeRequest) (ChangeResult, error) {
				return s.change(ctx, checkpoint.ActionUndo, req)
			}),
		def("review_navigate", "Move through the pending changes (\"change X of Y\"): next, prev, next_file, prev_file, first, last, or focus a file.", false, runNavigate),
	}
}

func runApprove(_ context.Context, s *Server, _ *call, req ApproveRequest) (ApprovalResult, error) {
	if err := s.opts.Approvals.Answer(s.current(), req.ApprovalID, approval.Answer{Approve: true, Command: req.Command, OutsideSandbox: req.OutsideSandbox}); err != nil {
		return ApprovalResult{}, err
	}
	return ApprovalResult{ApprovalID: req.ApprovalID, Decision: event.DecisionApproved}, nil
}

func runDeny(_ context.Context, s *Server, _ *call, req DenyRequest) (ApprovalResult, error) {
	if err := s.opts.Approvals.Answer(s.current(), req.ApprovalID, approval.Answer{Reason: req.Reason}); err != nil {
		return ApprovalResult{}, err
	}
	return ApprovalResult{ApprovalID: req.ApprovalID, Decision: event.DecisionDenied}, nil
}

func runSetAutoApprove(ctx context.Context, s *Server, _ *call, req AutoApproveRequest) (AutoApprove, error) {
	if s.opts.SetAutoApprove == nil {
		return AutoApprove{}, errUnavailable("set_auto_approve", "no approval settings")
	}
	if req.Commands == nil && req.SensitiveEdits == nil {
		return AutoApprove{}, errors.New("give commands, sensitiveEdits or both (true or false)")
	}
	sess, err := s.opts.SetAutoApprove(ctx, s.current(), req.Commands, req.SensitiveEdits)
	if err != nil {
		return AutoApprove{}, err
	}
	return AutoApprove{Commands: sess.AutoApproveCommands, SensitiveEdits: sess.AutoApproveSensitiveEdits}, nil
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

func runListChanges(ctx context.Context, s *Server, _ *call, _ Empty) (Changes, error) {
	id, m, rs, _, err := s.review(ctx)
	if err != nil {
		return Changes{}, err
	}
	ch, err := m.SessionChanges(ctx, id)
	if err != nil {
		return Changes{}, err
	}
	out := Changes{SessionID: id, Checkpoints: ch.Checkpoints, Files: []checkpoint.FileReview{},
		Additions: ch.Pending.Additions, Deletions: ch.Pending.Deletions}
	if out.Position, err = rs.Start(ctx, ch.IDs()...); err != nil {
		return Changes{}, err
	}
	if files := rs.Files(); files != nil {
		out.Files = files
	}
	return out, nil
}

// change keeps or undoes what req selects.
func (s *Server) change(ctx context.Context, action string, req ChangeRequest) (ChangeResult, error) {
	path := strings.TrimSpace(req.Path)
	switch {
	case path != "" && req.All:
		return ChangeResult{}, errors.New("give path or all, not both")
	case path == "" && !req.All:
		return ChangeResult{}, fmt.Errorf("say what to %s: a path (with a hunk, or the whole file), or all", action)
	case req.Hunk < 0:
		return ChangeResult{}, fmt.Errorf("field hunk: %d; hunks are numbered from 1 (list_changes numbers them)", req.Hunk)
	case req.Hunk > 0 && path == "":
		return ChangeResult{}, errors.New("field hunk needs path: hunk numbers belong to one file")
	}
	id, m, rs, ids, err := s.review(ctx)
	if err != nil {
		return ChangeResult{}, err
	}
	if path != "" {
		path = snapshotPath(m, path)
	}
	out := ChangeResult{Outcomes: []checkpoint.Outcome{}, Conflicts: []checkpoint.Conflict{}}
	if req.Hunk > 0 {
		// Hunk numbers are the review's: the file's newest pending run.
		if _, err := rs.Start(ctx, ids...); err != nil {
			return ChangeResult{}, err
		}
		act := rs.Keep
		if action == checkpoint.ActionUndo {
			act = rs.Undo
		}
		o, pos, err := act(ctx, path, req.Hunk)
		if err != nil {
			return ChangeResult{}, err
		}
		out.Outcomes, out.Conflicts, out.Position = append(out.Outcomes, *o), append(out.Conflicts, o.Conflicts()...), pos
		return out, nil
	}
	outs, opErr := m.ApplySession(ctx, id, action, path)
	for _, o := range outs {
		out.Outcomes = append(out.Outcomes, o)
		out.Conflicts = append(out.Conflicts, o.Conflicts()...)
	}
	if opErr != nil && len(outs) == 0 {
		return ChangeResult{}, opErr
	}
	// What is pending now: the review starts again from it.
	cps, err := m.Pending(ctx, id)
	if err != nil {
		return ChangeResult{}, err
	}
	ids = ids[:0]
	for _, c := range cps {
		ids = append(ids, c.ID)
	}
	if out.Position, err = rs.Start(ctx, ids...); err != nil {
		return ChangeResult{}, err
	}
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

func runNavigate(ctx context.Context, s *Server, _ *call, req NavigateRequest) (Review, error) {
	_, m, rs, ids, err := s.review(ctx)
	if err != nil {
		return Review{}, err
	}
	var pos checkpoint.ChangePosition
	switch mv, ok := moves[req.Move]; {
	case req.Move == "focus":
		if strings.TrimSpace(req.Path) == "" {
			return Review{}, errors.New("focus needs path: the file to show")
		}
		if _, err := rs.Navigate(ctx, checkpoint.FirstChange, ids...); err != nil {
			return Review{}, err
		}
		pos, err = rs.Focus(ctx, snapshotPath(m, req.Path))
	case ok:
		pos, err = rs.Navigate(ctx, mv, ids...)
	default:
		return Review{}, fmt.Errorf("field move: %q is not next, prev, next_file, prev_file, first, last or focus", req.Move)
	}
	if err != nil {
		return Review{}, err
	}
	out := Review{Position: pos}
	for _, f := range rs.Files() {
		if f.Path == pos.FilePath && f.CheckpointID == pos.CheckpointID {
			out.File = &f
			for i := range f.Hunks {
				if f.Hunks[i].Number == pos.Hunk {
					out.Hunk = &f.Hunks[i]
				}
			}
			break
		}
	}
	return out, nil
}
