package rpc

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/rpcproto"
)

// Wire names of the busy behaviours (pi's streamingBehavior).
const (
	wireSteer    = "steer"
	wireFollowUp = "followUp"
)

func promptCommands() []*command {
	return []*command{
		def(rpcproto.CmdPrompt, "Send a prompt. Answered as soon as it is accepted; its events follow. While a prompt runs, streamingBehavior queues it (steer: the running turn reads it at its next step; followUp: it runs as the next turn), and without it the prompt is refused. A prompt that was accepted but then refused by the agent (an @path outside the workspace) gets a second response with the same id and success false.", false, runPrompt),
		def(rpcproto.CmdSteer, "Queue a message for the running turn, which reads it after its current tool calls (at its next iteration). When the turn ends before that, it runs as the next turn; when nothing runs, it runs now, like prompt.", false,
			func(ctx context.Context, s *Server, c *call, req rpcproto.MessageRequest) (rpcproto.PromptResult, error) {
				return s.message(ctx, c, req, session.WhenBusySteer)
			}),
		def(rpcproto.CmdFollowUp, "Queue a message to run as a turn of its own once the running prompt (and the follow-ups before it) ended; when nothing runs, it runs now, like prompt.", false,
			func(ctx context.Context, s *Server, c *call, req rpcproto.MessageRequest) (rpcproto.PromptResult, error) {
				return s.message(ctx, c, req, session.WhenBusyFollowUp)
			}),
		def(rpcproto.CmdAbort, "Stop the running turn (streaming stops, a running command is killed, pending approvals end canceled) and drop the queued steering and follow-up messages.", false, runAbort),
		def(rpcproto.CmdCompact, "Summarize the conversation so far to free the context window (the /compact command); waits until the summary is recorded.", true, runCompact),
		def(rpcproto.CmdSetAutoCompaction, "Turn automatic context compaction on or off for the session, for as long as this olly runs (it is not stored). Off, the agent compacts neither at 70% of the context window nor when the server reports an overflow; compact still works.", false, runSetAutoCompaction),
		def(rpcproto.CmdBash, "Run a shell command in the session's shell, where the agent's commands run (cwd and exported variables persist). It goes through the same safety analysis and approval rules as the agent's commands; its output streams as tool_output, and its result is recorded for the model, which sees it with the next prompt.", true, runBash),
		def(rpcproto.CmdAbortBash, "Stop the command bash is running.", false, runAbortBash),
	}
}

func runPrompt(ctx context.Context, s *Server, c *call, req rpcproto.PromptRequest) (rpcproto.PromptResult, error) {
	images, err := promptImages(req.Images)
	if err != nil {
		return rpcproto.PromptResult{}, err
	}
	when, err := busyBehaviour(req.StreamingBehavior)
	if err != nil {
		return rpcproto.PromptResult{}, err
	}
	mode := event.Mode(req.Mode)
	if mode != "" && !slices.Contains(session.Modes(), mode) {
		return rpcproto.PromptResult{}, fmt.Errorf("field mode: %q is not a mode; use one of %s", req.Mode, session.ModeList())
	}
	return s.submit(ctx, c, session.PromptInput{Text: req.Message, Mode: mode, Model: req.Model, Images: images}, when)
}

func (s *Server) message(ctx context.Context, c *call, req rpcproto.MessageRequest, when session.WhenBusy) (rpcproto.PromptResult, error) {
	images, err := promptImages(req.Images)
	if err != nil {
		return rpcproto.PromptResult{}, err
	}
	return s.submit(ctx, c, session.PromptInput{Text: req.Message, Images: images}, when)
}

// busyBehaviour reads streamingBehavior.
func busyBehaviour(v string) (session.WhenBusy, error) {
	switch v {
	case "":
		return session.WhenBusyRefuse, nil
	case wireSteer:
		return session.WhenBusySteer, nil
	case wireFollowUp, string(session.WhenBusyFollowUp):
		return session.WhenBusyFollowUp, nil
	}
	return "", fmt.Errorf("field streamingBehavior: %q is not steer or followUp", v)
}

// promptImages decodes pi's image content. The type is read from the
// bytes: a mimeType that does not match them is refused.
func promptImages(in []rpcproto.ImageContent) ([]event.ImageRef, error) {
	var out []event.ImageRef
	for i, img := range in {
		if img.Type != "image" {
			return nil, fmt.Errorf("field images[%d].type: %q is not \"image\"", i, img.Type)
		}
		data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(img.Data))
		if err != nil {
			return nil, fmt.Errorf("field images[%d].data: not base64: %v", i, err)
		}
		mime, err := session.ImageType(data)
		if err != nil {
			return nil, fmt.Errorf("field images[%d]: %v", i, err)
		}
		if img.MimeType != "" && !strings.EqualFold(img.MimeType, mime) {
			return nil, fmt.Errorf("field images[%d].mimeType: %q, but the data is %s", i, img.MimeType, mime)
		}
		out = append(out, session.NewImageRef(mime, data))
	}
	return out, nil
}

// submit hands a message to the session service: it runs now (in the
// server's work, after the response is written, so its events follow the
// response) or waits for the running prompt.
func (s *Server) submit(ctx context.Context, c *call, in session.PromptInput, when session.WhenBusy) (rpcproto.PromptResult, error) {
	id := s.current()
	sub, err := s.admit(ctx, id, in, when)
	return s.accepted(c, id, sub, err)
}

// admit submits in to the session, waiting for a turn that has ended
// (the client saw agent_end) to give the session back (ending.go).
func (s *Server) admit(ctx context.Context, id string, in session.PromptInput, when session.WhenBusy) (*session.Submission, error) {
	sub, err := s.opts.Sessions.Submit(ctx, id, in, when)
	if errors.Is(err, session.ErrBusy) && s.turnEnding(ctx, id) {
		sub, err = s.submitAfterEnd(ctx, id, in, when)
	}
	return sub, err
}

// accepted answers a submission: queued, or run in the server's work once
// the response is written.
func (s *Server) accepted(c *call, id string, sub *session.Submission, err error) (rpcproto.PromptResult, error) {
	if err != nil {
		return rpcproto.PromptResult{}, busyHint(err)
	}
	res := rpcproto.PromptResult{SessionID: id}
	switch sub.Queued {
	case session.WhenBusySteer:
		res.Queued = wireSteer
	case session.WhenBusyFollowUp:
		res.Queued = wireFollowUp
	default:
		c.after = func() { s.goWork(func(ctx context.Context) { s.runSubmission(ctx, c, id, sub) }) }
	}
	return res, nil
}

// busyHint adds the protocol's way out to a busy session's refusal.
func busyHint(err error) error {
	if errors.Is(err, session.ErrBusy) {
		return fmt.Errorf("%w (send it with streamingBehavior steer or followUp to queue it, or abort first)", err)
	}
	return err
}

// runSubmission runs an accepted prompt. A failure before its turn
// started is the command's second response.
func (s *Server) runSubmission(ctx context.Context, c *call, id string, sub *session.Submission) {
	if ctx.Err() != nil {
		sub.Release() // the server is stopping: the prompt never started
		return
	}
	res, err := sub.Run(ctx)
	if err != nil {
		s.respond(c.id, c.name, nil, fmt.Errorf("the prompt was accepted but did not run: %w", err))
		return
	}
	// /new continues in a new session: so does the client.
	if res != nil && res.SessionID != "" && res.SessionID != id && s.current() == id {
		if err := s.followSession(res.SessionID, 0); err != nil {
			s.log().Warn("rpc: could not follow the new session", "session", res.SessionID, "error", err)
		}
	}
}

func runAbort(_ context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.AbortResult, error) {
	id := s.current()
	dropped := len(s.opts.Sessions.ClearQueue(id))
	return rpcproto.AbortResult{Aborted: s.opts.Sessions.Abort(id), Dropped: dropped}, nil
}

func runCompact(ctx context.Context, s *Server, _ *call, req rpcproto.CompactRequest) (rpcproto.CompactResult, error) {
	id := s.current()
	text := strings.TrimSpace("/compact " + req.CustomInstructions)
	// A compact sent right after agent_end waits for that turn to wind
	// down, as a prompt does.
	sub, err := s.admit(ctx, id, session.PromptInput{Text: text}, session.WhenBusyRefuse)
	if err != nil {
		return rpcproto.CompactResult{}, busyHint(err)
	}
	s.setCompacting(true)
	res, err := sub.Run(ctx)
	s.setCompacting(false)
	if err != nil {
		return rpcproto.CompactResult{}, err
	}
	if res != nil && res.Status == event.FinishFailed {
		return rpcproto.CompactResult{}, fmt.Errorf("compact: %s", res.Error)
	}
	evs, err := s.opts.Sessions.History(ctx, id)
	if err != nil {
		return rpcproto.CompactResult{}, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if p, ok := evs[i].Data.(event.Compaction); ok && (res == nil || evs[i].Turn == res.Turn) {
			return rpcproto.CompactResult{Summary: p.Summary, FirstKeptEntryID: fmt.Sprint(p.FirstKeptSeq), FirstKeptSeq: p.FirstKeptSeq,
				TokensBefore: p.TokensBefore, TokensAfter: p.TokensAfter}, nil
		}
	}
	return rpcproto.CompactResult{}, errors.New("compact: nothing was compacted (the conversation is too short to summarize)")
}

func (s *Server) setCompacting(on bool) {
	s.mu.Lock()
	s.compacting = on
	s.mu.Unlock()
}

func runSetAutoCompaction(_ context.Context, s *Server, _ *call, req rpcproto.EnabledRequest) (rpcproto.Empty, error) {
	if s.opts.AutoCompaction == nil {
		return rpcproto.Empty{}, errUnavailable("set_auto_compaction", "this server was started without the agent's compaction switch")
	}
	return rpcproto.Empty{}, s.opts.AutoCompaction.SetAutoCompaction(s.current(), *req.Enabled)
}

func runBash(ctx context.Context, s *Server, _ *call, req rpcproto.BashRequest) (*rpcproto.BashResult, error) {
	if s.opts.RunCommand == nil {
		return nil, errUnavailable("bash", "this olly was started without a shell for the person's commands")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.bash != nil {
		s.mu.Unlock()
		return nil, errors.New("a command is already running: wait for it, or stop it with abort_bash")
	}
	s.bash = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.bash = nil
		s.mu.Unlock()
	}()
	res, err := s.opts.RunCommand(ctx, s.current(), req.Command)
	if err != nil {
		return nil, busyHint(err)
	}
	return res, nil
}

func runAbortBash(_ context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.AbortResult, error) {
	s.mu.Lock()
	cancel := s.bash
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return rpcproto.AbortResult{Aborted: cancel != nil}, nil
}
