package rpc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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
	// A cut before the first prompt is a fork with nothing in it yet,
	// like pi's fork of the first message; it still records its parent.
	fork, bp, err := s.opts.Sessions.Fork(ctx, parent, seq)
	if err != nil {
		return rpcproto.ForkResult{}, err
	}
	text := bp.Prompt
	last, err := s.opts.Sessions.LastSeq(ctx, fork.ID)
	if err != nil {
		return rpcproto.ForkResult{}, err
	}
	if err := s.followSession(fork.ID, last); err != nil {
		return rpcproto.ForkResult{}, err
	}
	return rpcproto.ForkResult{Text: text, SessionID: fork.ID, ParentSessionID: parent, Workspace: fork.Workspace, LastSeq: last}, nil
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
