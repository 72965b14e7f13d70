package rpc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/rpcproto"
)

// Thinking is the agent's per-session thinking level.
type Thinking interface {
	ThinkingLevel(sessionID string) string
	SetThinkingLevel(sessionID, level string) error
	CycleThinkingLevel(ctx context.Context, sessionID, model string) (string, bool, error)
}

// abortWait bounds how long abort_and_prompt waits for the aborted turn
// to end before it gives up.
const abortWait = 30 * time.Second

func queueCommands() []*command {
	return []*command{
		def(rpcproto.CmdCycleModel, "Switch the session to the next enabled model the server has (by name, after the last the first). Null when there is no other.", true, runCycleModel),
		def(rpcproto.CmdSetThinkingLevel, "Set how hard a model that can think does, from the session's next turn (for as long as this olly runs): off, or a level. Ollama gets think as a level for models that take one (gpt-oss: low, medium, high) and true or false for others; OpenAI-compatible servers get reasoning_effort.", false, runSetThinkingLevel),
		def(rpcproto.CmdCycleThinkingLevel, "Move to the next thinking level the session's model tells apart (off, low, medium, high where levels reach it; off and medium where only a switch does). Null when the model cannot think.", true, runCycleThinkingLevel),
		def(rpcproto.CmdAbortAndPrompt, "Stop the running turn and drop the queued messages, then send the message as a new prompt once the turn has ended. Answered when the prompt is accepted.", true, runAbortAndPrompt),
		def(rpcproto.CmdSetSteeringMode, "How a running turn reads steering messages: all (every waiting one at its next step, the default) or one-at-a-time (one per step).", false, runSetSteeringMode),
		def(rpcproto.CmdSetFollowUpMode, "How queued follow-ups run: one-at-a-time (a turn each, the default) or all (the waiting ones run as one turn, their texts joined; a slash command still runs alone).", false, runSetFollowUpMode),
		def(rpcproto.CmdSetInterruptMode, "When a running turn reads a steering message: wait (after all the tool calls of the model's response, the default) or immediate (once the call running ends; the response's other calls are not run and the model is told so).", false, runSetInterruptMode),
	}
}

func runCycleModel(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (*rpcproto.CycleModelResult, error) {
	if s.opts.Models == nil {
		return nil, errUnavailable(rpcproto.CmdCycleModel, "no model catalog")
	}
	sess, err := s.sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.opts.Models.List(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range list {
		if m.Enabled && !slices.Contains(names, m.Name) {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 || (len(names) == 1 && names[0] == sess.Model) {
		return nil, nil
	}
	next := names[0]
	for _, n := range names {
		if n > sess.Model {
			next = n
			break
		}
	}
	if _, err := s.opts.Sessions.ChangeSettings(ctx, sess.ID, event.SessionSettings{Model: &next}); err != nil {
		return nil, err
	}
	m := s.sessionModel(ctx, next)
	return &rpcproto.CycleModelResult{Model: *m, ThinkingLevel: s.thinkingLevel(sess.ID)}, nil
}

// thinkingLevel is the session's thinking level.
func (s *Server) thinkingLevel(id string) string {
	if s.opts.Levels != nil {
		return s.opts.Levels.ThinkingLevel(id)
	}
	if s.server().Thinking {
		return "medium"
	}
	return "off"
}

func runSetThinkingLevel(_ context.Context, s *Server, _ *call, req rpcproto.ThinkingLevelRequest) (rpcproto.Empty, error) {
	if s.opts.Levels == nil {
		return rpcproto.Empty{}, errUnavailable(rpcproto.CmdSetThinkingLevel, "this server was started without the agent's thinking levels")
	}
	return rpcproto.Empty{}, s.opts.Levels.SetThinkingLevel(s.current(), req.Level)
}

func runCycleThinkingLevel(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (*rpcproto.ThinkingLevelResult, error) {
	if s.opts.Levels == nil {
		return nil, errUnavailable(rpcproto.CmdCycleThinkingLevel, "this server was started without the agent's thinking levels")
	}
	sess, err := s.sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if sess.Model == "" {
		return nil, errors.New("the session has no model yet: set one with set_model")
	}
	lvl, ok, err := s.opts.Levels.CycleThinkingLevel(ctx, sess.ID, sess.Model)
	if err != nil || !ok {
		return nil, err
	}
	return &rpcproto.ThinkingLevelResult{Level: lvl}, nil
}

func runAbortAndPrompt(ctx context.Context, s *Server, c *call, req rpcproto.MessageRequest) (rpcproto.PromptResult, error) {
	images, err := promptImages(req.Images)
	if err != nil {
		return rpcproto.PromptResult{}, err
	}
	id := s.current()
	s.opts.Sessions.ClearQueue(id)
	s.opts.Sessions.Abort(id)
	// The aborted turn winds down (its commands are killed, its events
	// recorded) before the session takes the new prompt. A turn another
	// client started meanwhile is aborted too (session.TakenAbort).
	wctx, cancel := context.WithTimeout(ctx, abortWait)
	defer cancel()
	sub, err := s.opts.Sessions.SubmitWhenIdle(wctx, id, session.PromptInput{Text: req.Message, Images: images}, session.WhenBusyRefuse, session.TakenAbort)
	switch {
	case ctx.Err() != nil:
		return rpcproto.PromptResult{}, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return rpcproto.PromptResult{}, fmt.Errorf("the aborted turn did not end within %s: %w", abortWait, session.ErrBusy)
	}
	return s.accepted(c, id, sub, err)
}

func runSetSteeringMode(_ context.Context, s *Server, _ *call, req rpcproto.QueueModeRequest) (rpcproto.Empty, error) {
	m, err := session.ParseQueueMode(req.Mode)
	if err != nil {
		return rpcproto.Empty{}, fmt.Errorf("field mode: %w", err)
	}
	s.opts.Sessions.SetQueueModes(s.current(), session.QueueModes{Steering: m})
	return rpcproto.Empty{}, nil
}

func runSetFollowUpMode(_ context.Context, s *Server, _ *call, req rpcproto.QueueModeRequest) (rpcproto.Empty, error) {
	m, err := session.ParseQueueMode(req.Mode)
	if err != nil {
		return rpcproto.Empty{}, fmt.Errorf("field mode: %w", err)
	}
	s.opts.Sessions.SetQueueModes(s.current(), session.QueueModes{FollowUp: m})
	return rpcproto.Empty{}, nil
}

func runSetInterruptMode(_ context.Context, s *Server, _ *call, req rpcproto.InterruptModeRequest) (rpcproto.Empty, error) {
	m, err := session.ParseInterruptMode(strings.TrimSpace(req.Mode))
	if err != nil {
		return rpcproto.Empty{}, fmt.Errorf("field mode: %w", err)
	}
	s.opts.Sessions.SetQueueModes(s.current(), session.QueueModes{Interrupt: m})
	return rpcproto.Empty{}, nil
}
