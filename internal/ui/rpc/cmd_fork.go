package rpc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

func forkCommands() []*command {
	return []*command{
		def(rpcproto.CmdFork, "Continue in a new session that holds the conversation before one of this session's prompts (pi's fork); the session it was cut from stays as it is. Commands act on the new session from now on. Returns the prompt's text, to edit and send again. Refused while a prompt runs.", false, runFork),
		def(rpcproto.CmdGetForkMessages, "The prompts of the current branch that fork can cut before, oldest first.", false, runForkMessages),
	}
}

// entrySeq reads a prompt's entry: entryId (a seq as a string) or seq.
func entrySeq(entryID string, seq int64, lister string) (int64, error) {
	if s := strings.TrimSpace(entryID); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("field entryId: %q is not an entry (%s lists them)", entryID, lister)
		}
		return n, nil
	}
	if seq <= 0 {
		return 0, fmt.Errorf("missing field entryId: the prompt to cut before (%s lists them)", lister)
	}
	return seq, nil
}

func runFork(ctx context.Context, s *Server, _ *call, req rpcproto.ForkRequest) (rpcproto.ForkResult, error) {
	seq, err := entrySeq(req.EntryID, req.Seq, rpcproto.CmdGetForkMessages)
	if err != nil {
		return rpcproto.ForkResult{}, err
	}
	if err := s.busyRefusal("forking it"); err != nil {
		return rpcproto.ForkResult{}, err
	}
	parent := s.current()
	text, ok, err := s.firstPrompt(ctx, parent, seq)
	if err != nil {
		return rpcproto.ForkResult{}, err
	}
	var fork *store.Session
	if ok {
		// Cut before the first prompt: nothing to copy, like pi's fork
		// of the first message; a fresh session with the same settings.
		cur, err := s.opts.Sessions.Open(ctx, parent)
		if err != nil {
			return rpcproto.ForkResult{}, err
		}
		fork, err = s.opts.Sessions.Create(ctx, session.CreateOptions{Workspace: cur.Workspace, Mode: event.Mode(cur.Mode), Model: cur.Model})
		if err != nil {
			return rpcproto.ForkResult{}, err
		}
	} else {
		var bp *session.BranchPoint
		if fork, bp, err = s.opts.Sessions.Fork(ctx, parent, seq); err != nil {
			return rpcproto.ForkResult{}, err
		}
		text = bp.Prompt
	}
	last, err := s.opts.Sessions.LastSeq(ctx, fork.ID)
	if err != nil {
		return rpcproto.ForkResult{}, err
	}
	if err := s.followSession(fork.ID, last); err != nil {
		return rpcproto.ForkResult{}, err
	}
	return rpcproto.ForkResult{Text: text, SessionID: fork.ID, ParentSessionID: parent, Workspace: fork.Workspace, LastSeq: last}, nil
}

// firstPrompt reports whether seq is the first prompt of the session's
// current branch (a fork before it holds nothing), with its text.
func (s *Server) firstPrompt(ctx context.Context, id string, seq int64) (string, bool, error) {
	prompts, err := s.opts.Sessions.BranchPrompts(ctx, id)
	if err != nil {
		return "", false, err
	}
	if len(prompts) == 0 {
		return "", false, errors.New("the session has no prompts yet: there is nothing to fork")
	}
	if prompts[0].Seq == seq {
		return prompts[0].Text, true, nil
	}
	return "", false, nil
}

func runForkMessages(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.ForkMessages, error) {
	prompts, err := s.opts.Sessions.BranchPrompts(ctx, s.current())
	if err != nil {
		return rpcproto.ForkMessages{}, err
	}
	out := rpcproto.ForkMessages{Messages: []rpcproto.ForkMessage{}}
	for _, p := range prompts {
		out.Messages = append(out.Messages, rpcproto.ForkMessage{EntryID: strconv.FormatInt(p.Seq, 10), Text: p.Text, Seq: p.Seq, Turn: p.Turn})
	}
	return out, nil
}
