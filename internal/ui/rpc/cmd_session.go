package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/olly-agent/olly/internal/atomicfile"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

func sessionCommands() []*command {
	return []*command{
		def(rpcproto.CmdNewSession, "Start a new session (same workspace, mode and model unless told) and switch to it. Refused while a prompt runs.", false, runNewSession),
		def(rpcproto.CmdSwitchSession, "Switch to another stored session; its events stream from now on (get_events replays its past).", false, runSwitchSession),
		def(rpcproto.CmdBranch, "Go back to a prompt of the session: the next prompt starts a new branch just before it (the old branch stays in the log). Returns the prompt's text to edit and send again.", false, runBranch),
		def(rpcproto.CmdSetSessionName, "Rename the session (recorded as title_changed).", false, runSetName),
		def(rpcproto.CmdSetModel, "Use another model for the session's next turns; it must be installed on the server.", false, runSetModel),
		def(rpcproto.CmdSetMode, "Run the session's next prompts in another mode (agent, plan, review, …).", false, runSetMode),
		def(rpcproto.CmdExportHTML, "Write the session's current branch as a self-contained HTML page.", false, runExportHTML),
	}
}

// busyRefusal refuses to leave a session while a prompt runs in it.
func (s *Server) busyRefusal(what string) error {
	id := s.current()
	if s.opts.Sessions.Busy(id) || s.opts.Sessions.Queued(id).Total() > 0 {
		return fmt.Errorf("session %s is working on a prompt: abort it (or wait for agent_end / turn_finished) before %s", id, what)
	}
	return nil
}

func runNewSession(ctx context.Context, s *Server, _ *call, req rpcproto.NewSessionRequest) (rpcproto.SwitchResult, error) {
	if err := s.busyRefusal("starting a new session"); err != nil {
		return rpcproto.SwitchResult{}, err
	}
	cur, err := s.opts.Sessions.Open(ctx, s.current())
	if err != nil {
		return rpcproto.SwitchResult{}, err
	}
	ws := cur.Workspace
	if strings.TrimSpace(req.Workspace) != "" {
		ws = req.Workspace
	}
	sess, err := s.opts.Sessions.Create(ctx, session.CreateOptions{Workspace: ws, Mode: event.Mode(cur.Mode), Model: cur.Model})
	if err != nil {
		return rpcproto.SwitchResult{}, err
	}
	if err := s.followSession(sess.ID, 0); err != nil {
		return rpcproto.SwitchResult{}, err
	}
	s.opened(sess)
	return rpcproto.SwitchResult{SessionID: sess.ID, Workspace: sess.Workspace}, nil
}

func runSwitchSession(ctx context.Context, s *Server, _ *call, req rpcproto.SwitchRequest) (rpcproto.SwitchResult, error) {
	ref := strings.TrimSpace(req.SessionID)
	if ref == "" {
		ref = strings.TrimSpace(req.SessionPath)
	}
	if ref == "" {
		return rpcproto.SwitchResult{}, errors.New("missing field sessionId: the session to switch to (list_sessions lists them)")
	}
	sess, err := s.opts.Sessions.Find(ctx, ref)
	if err != nil {
		return rpcproto.SwitchResult{}, err
	}
	if sess.ID == s.current() {
		last, err := s.opts.Sessions.LastSeq(ctx, sess.ID)
		return rpcproto.SwitchResult{SessionID: sess.ID, Workspace: sess.Workspace, Title: sess.Title, LastSeq: last}, err
	}
	if err := s.busyRefusal("switching sessions"); err != nil {
		return rpcproto.SwitchResult{}, err
	}
	last, err := s.opts.Sessions.LastSeq(ctx, sess.ID)
	if err != nil {
		return rpcproto.SwitchResult{}, err
	}
	if err := s.followSession(sess.ID, last); err != nil {
		return rpcproto.SwitchResult{}, err
	}
	s.opened(sess)
	return rpcproto.SwitchResult{SessionID: sess.ID, Workspace: sess.Workspace, Title: sess.Title, LastSeq: last}, nil
}

// opened tells Options.Opened about the session the server now follows.
func (s *Server) opened(sess *store.Session) {
	if s.opts.Opened != nil {
		s.opts.Opened(sess)
	}
}

func runBranch(ctx context.Context, s *Server, _ *call, req rpcproto.BranchRequest) (rpcproto.BranchResult, error) {
	seq := req.Seq
	if req.EntryID != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(req.EntryID), 10, 64)
		if err != nil || n <= 0 {
			return rpcproto.BranchResult{}, fmt.Errorf("field entryId: %q is not an entry (get_branch_messages lists them)", req.EntryID)
		}
		seq = n
	}
	if seq <= 0 {
		return rpcproto.BranchResult{}, errors.New("missing field entryId: the prompt to branch from (get_branch_messages lists them)")
	}
	id := s.current()
	bp, err := s.opts.Sessions.Branch(ctx, id, seq)
	if err != nil {
		return rpcproto.BranchResult{}, err
	}
	s.sessionMoved(id) // the same session, another branch
	return rpcproto.BranchResult{Text: bp.Prompt, Seq: bp.Seq, Turn: bp.Turn}, nil
}

func runSetName(ctx context.Context, s *Server, _ *call, req rpcproto.NameRequest) (rpcproto.NameResult, error) {
	sess, err := s.opts.Sessions.Rename(ctx, s.current(), req.Name)
	if err != nil {
		return rpcproto.NameResult{}, err
	}
	return rpcproto.NameResult{SessionID: sess.ID, Name: sess.Title}, nil
}

func runSetModel(ctx context.Context, s *Server, _ *call, req rpcproto.SetModelRequest) (rpcproto.PiModel, error) {
	if s.opts.Models == nil {
		return rpcproto.PiModel{}, errUnavailable("set_model", "no model catalog")
	}
	name := strings.TrimSpace(req.ModelID)
	// Answered in order (a prompt sent after it uses the new model), so
	// the check is bounded: abort must not wait long behind it.
	checkCtx, cancel := context.WithTimeout(ctx, modelCheck)
	defer cancel()
	d, err := s.opts.Models.Details(checkCtx, name)
	if err != nil {
		return rpcproto.PiModel{}, err
	}
	if _, err := s.opts.Sessions.ChangeSettings(ctx, s.current(), event.SessionSettings{Model: &name}); err != nil {
		return rpcproto.PiModel{}, err
	}
	m := s.piModel(*d, false)
	m.ID, m.Name = name, name
	return m, nil
}

func runSetMode(ctx context.Context, s *Server, _ *call, req rpcproto.ModeRequest) (rpcproto.ModeResult, error) {
	sess, err := s.opts.Sessions.ChangeSettings(ctx, s.current(), event.SessionSettings{Mode: (*event.Mode)(&req.Mode)})
	if err != nil {
		return rpcproto.ModeResult{}, err
	}
	return rpcproto.ModeResult{Mode: sess.Mode}, nil
}

func runExportHTML(ctx context.Context, s *Server, _ *call, req rpcproto.ExportRequest) (rpcproto.PathResult, error) {
	if s.opts.ExportHTML == nil {
		return rpcproto.PathResult{}, errUnavailable("export_html", "no HTML exporter")
	}
	id := s.current()
	sess, err := s.opts.Sessions.Open(ctx, id)
	if err != nil {
		return rpcproto.PathResult{}, err
	}
	evs, err := s.opts.Sessions.History(ctx, id)
	if err != nil {
		return rpcproto.PathResult{}, err
	}
	path := strings.TrimSpace(req.OutputPath)
	switch {
	case path == "" && s.opts.ExportDir == "":
		return rpcproto.PathResult{}, errors.New("missing field outputPath: this olly has no default export directory")
	case path == "":
		path = filepath.Join(s.opts.ExportDir, "olly-"+id+".html")
	case !filepath.IsAbs(path):
		path = filepath.Join(sess.Workspace, path)
	}
	var b bytes.Buffer
	if err := s.opts.ExportHTML(&b, sess, evs); err != nil {
		return rpcproto.PathResult{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return rpcproto.PathResult{}, fmt.Errorf("export_html: %w", err)
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return rpcproto.PathResult{}, fmt.Errorf("export_html: %w", err)
	}
	return rpcproto.PathResult{Path: path}, nil
}

// sessionOf reads the current session.
func (s *Server) sessionOf(ctx context.Context) (*store.Session, error) {
	return s.opts.Sessions.Open(ctx, s.current())
}
