package rpc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/toolcall"
	"github.com/olly-agent/olly/rpcproto"
)

// Limits of the listing commands.
const (
	maxEvents       = 5000
	defaultSessions = 50
	defaultSearch   = 20
	// modelLookup bounds asking the server about the session's model for
	// get_state: state must come back even when the server is down.
	modelLookup = 2 * time.Second
	// modelCheck bounds set_model's check that the server has the model.
	modelCheck = 5 * time.Second
)

func queryCommands() []*command {
	return []*command{
		def(rpcproto.CmdGetState, "The session's state: model, whether a prompt runs, queued messages, pending approvals, toggles.", true, runGetState),
		def(rpcproto.CmdGetMessages, "The conversation of the session's current branch as pi messages (user, assistant, toolResult).", false, runGetMessages),
		def(rpcproto.CmdGetLastAssistantText, "The agent's last answer on the current branch.", false, runLastText),
		def(rpcproto.CmdGetBranchMessages, "The prompts of the current branch, which branch can go back to.", false, runBranchMessages),
		def(rpcproto.CmdGetSessionStats, "Message, tool-call and token counts of the current branch, and the lines of changes still pending.", false, runSessionStats),
		def(rpcproto.CmdGetAvailableModels, "The models the server has.", true, runGetModels),
		def(rpcproto.CmdGetCommands, "The slash commands a prompt may start with: the built-ins and the custom commands of the session's workspace and of the person.", false, runGetCommands),
		def(rpcproto.CmdGetEvents, "The session's stored events after a seq (every branch, in order): how a client that reconnects catches up before the live stream.", false, runGetEvents),
		def(rpcproto.CmdListSessions, "Stored sessions, most recently updated first.", false, runListSessions),
		def(rpcproto.CmdSearchSessions, "Search every session's prompts, answers and titles (by words, and by meaning with an embedding model).", true, runSearch),
	}
}

func runGetState(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.State, error) {
	sess, err := s.sessionOf(ctx)
	if err != nil {
		return rpcproto.State{}, err
	}
	evs, err := s.opts.Sessions.History(ctx, sess.ID)
	if err != nil {
		return rpcproto.State{}, err
	}
	last, err := s.opts.Sessions.LastSeq(ctx, sess.ID)
	if err != nil {
		return rpcproto.State{}, err
	}
	q, qm := s.opts.Sessions.Queued(sess.ID), s.opts.Sessions.QueueModes(sess.ID)
	s.mu.Lock()
	compacting := s.compacting
	s.mu.Unlock()
	st := rpcproto.State{
		Model: s.sessionModel(ctx, sess.Model), ThinkingLevel: s.thinkingLevel(sess.ID), IsStreaming: s.opts.Sessions.Busy(sess.ID),
		IsCompacting: compacting, SteeringMode: string(qm.Steering), FollowUpMode: string(qm.FollowUp), InterruptMode: string(qm.Interrupt),
		SessionID: sess.ID, SessionName: sess.Title, AutoCompactionEnabled: true,
		MessageCount: len(piMessages(evs, s.server().Provider)), PendingMessageCount: q.Total(),
		Workspace: sess.Workspace, Mode: firstNonEmpty(sess.Mode, string(event.ModeAgent)), Status: string(sess.Status),
		AutoApprove:      s.autoApprove(sess),
		PendingApprovals: s.opts.Approvals.Pending(sess.ID), Queue: wireQueue(q), LastSeq: last, Events: s.opts.Events,
	}
	if s.opts.AutoCompaction != nil {
		st.AutoCompactionEnabled = s.opts.AutoCompaction.AutoCompaction(sess.ID)
	}
	if st.PendingApprovals == nil {
		st.PendingApprovals = []event.ApprovalRequested{}
	}
	if st.Todos = session.LastTodos(evs); st.Todos == nil {
		st.Todos = []event.Todo{}
	}
	return st, nil
}

// autoApprove is what the session's approvals do without asking: its own
// toggles, or the policy olly was started with (--yes).
func (s *Server) autoApprove(sess *store.Session) rpcproto.AutoApprove {
	p := s.opts.Approvals.Policy(sess.ID)
	return rpcproto.AutoApprove{Commands: sess.AutoApproveCommands || p.AutoApproveCommands,
		SensitiveEdits: sess.AutoApproveSensitiveEdits || p.AutoApproveSensitiveEdits}
}

// sessionModel describes the session's model, from the server when it
// answers in time, else by name only.
func (s *Server) sessionModel(ctx context.Context, name string) *rpcproto.PiModel {
	if name == "" {
		return nil
	}
	if s.opts.Models != nil {
		ctx, cancel := context.WithTimeout(ctx, modelLookup)
		defer cancel()
		if d, err := s.opts.Models.Details(ctx, name); err == nil {
			m := s.piModel(*d, false)
			m.ID, m.Name = name, name
			return &m
		}
	}
	m := s.piModel(llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: name}}, false)
	return &m
}

// piModel describes a model as pi does.
func (s *Server) piModel(d llm.ModelDetails, running bool) rpcproto.PiModel {
	srv := s.server()
	provider, api := piProvider(srv.Provider)
	input := []string{"text"}
	if d.Capabilities.Vision {
		input = append(input, "image")
	}
	return rpcproto.PiModel{ID: d.Name, Name: d.Name, API: api, Provider: provider, BaseURL: srv.BaseURL,
		Reasoning: d.Capabilities.Thinking, Input: input, ContextWindow: d.ContextLength, MaxTokens: srv.MaxTokens,
		Tools: d.Capabilities.Tools, Family: d.Family, ParameterSize: d.ParameterSize, Quantization: d.QuantizationLevel, Running: running,
		Dialect: string(toolcall.TemplateDialect(d.Template))}
}

func runGetMessages(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.MessagesResult, error) {
	evs, err := s.opts.Sessions.History(ctx, s.current())
	if err != nil {
		return rpcproto.MessagesResult{}, err
	}
	return rpcproto.MessagesResult{Messages: piMessages(evs, s.server().Provider)}, nil
}

func runLastText(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.TextResult, error) {
	text, ok, err := s.opts.Sessions.LastAnswer(ctx, s.current())
	if err != nil || !ok {
		return rpcproto.TextResult{}, err
	}
	return rpcproto.TextResult{Text: &text}, nil
}

func runBranchMessages(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.BranchMessages, error) {
	prompts, err := s.opts.Sessions.BranchPrompts(ctx, s.current())
	if err != nil {
		return rpcproto.BranchMessages{}, err
	}
	out := rpcproto.BranchMessages{Messages: []rpcproto.BranchMessage{}}
	for _, p := range prompts {
		out.Messages = append(out.Messages, rpcproto.BranchMessage{EntryID: strconv.FormatInt(p.Seq, 10), Seq: p.Seq, Turn: p.Turn, Text: p.Text})
	}
	return out, nil
}

func runSessionStats(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.SessionStats, error) {
	id := s.current()
	st, err := s.opts.Sessions.Stats(ctx, id)
	if err != nil {
		return rpcproto.SessionStats{}, err
	}
	out := rpcproto.SessionStats{SessionID: id, Turns: st.Turns, UserMessages: st.UserMessages, AssistantMessages: st.AssistantMessages,
		ToolCalls: st.ToolCalls, ToolResults: st.ToolResults, TotalMessages: st.UserMessages + st.AssistantMessages + st.ToolResults,
		ContextWindow: st.ContextWindow, ContextTokens: st.ContextTokens, ContextCategories: st.Context,
		PendingAdditions: st.Pending.Additions, PendingDeletions: st.Pending.Deletions}
	out.Tokens.Input, out.Tokens.Output, out.Tokens.Total = st.InputTokens, st.OutputTokens, st.InputTokens+st.OutputTokens
	return out, nil
}

func runGetModels(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.ModelsResult, error) {
	if s.opts.Models == nil {
		return rpcproto.ModelsResult{}, errUnavailable("get_available_models", "no model catalog")
	}
	list, err := s.opts.Models.List(ctx)
	if err != nil {
		return rpcproto.ModelsResult{}, err
	}
	out := rpcproto.ModelsResult{Models: []rpcproto.PiModel{}}
	for _, m := range list {
		if !m.Enabled {
			continue // the person disabled it (olly models disable): never offered
		}
		out.Models = append(out.Models, s.piModel(m.ModelDetails, m.Running))
	}
	return out, nil
}

// runGetCommands lists the session's slash commands: the built-ins, the
// custom ones of its workspace and of the person (source project, claude
// or user) and its MCP servers' prompts (source mcp).
func runGetCommands(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.CommandsResult, error) {
	out := rpcproto.CommandsResult{Commands: []rpcproto.CommandInfo{}}
	cmds, err := s.opts.Sessions.Commands(ctx, s.current())
	if err != nil {
		return out, err
	}
	for _, c := range cmds {
		out.Commands = append(out.Commands, rpcproto.CommandInfo{Name: c.Name, Description: c.About, Usage: c.Usage, Source: c.Source})
	}
	return out, nil
}

func runGetEvents(ctx context.Context, s *Server, _ *call, req rpcproto.EventsRequest) (rpcproto.EventsResult, error) {
	id := strings.TrimSpace(req.SessionID)
	if id == "" {
		id = s.current()
	} else {
		sess, err := s.opts.Sessions.Find(ctx, id)
		if err != nil {
			return rpcproto.EventsResult{}, err
		}
		id = sess.ID
	}
	if req.AfterSeq < 0 || req.Limit < 0 {
		return rpcproto.EventsResult{}, fmt.Errorf("afterSeq and limit must not be negative")
	}
	limit := req.Limit
	if limit == 0 || limit > maxEvents {
		limit = maxEvents
	}
	evs, err := s.opts.Sessions.Events(ctx, id, req.AfterSeq, limit+1)
	if err != nil {
		return rpcproto.EventsResult{}, err
	}
	out := rpcproto.EventsResult{Events: evs, LastSeq: req.AfterSeq}
	if len(evs) > limit {
		out.Events, out.More = evs[:limit], true
	}
	if n := len(out.Events); n > 0 {
		out.LastSeq = out.Events[n-1].Seq
	}
	return out, nil
}

func runListSessions(ctx context.Context, s *Server, _ *call, req rpcproto.ListSessionsRequest) (rpcproto.SessionsResult, error) {
	dir := strings.TrimSpace(req.Workspace)
	if dir == "" && !req.All {
		sess, err := s.sessionOf(ctx)
		if err != nil {
			return rpcproto.SessionsResult{}, err
		}
		dir = sess.Workspace
	}
	limit := req.Limit
	if limit <= 0 {
		limit = defaultSessions
	}
	list, err := s.opts.Sessions.Recent(ctx, dir, limit)
	if err != nil {
		return rpcproto.SessionsResult{}, err
	}
	out := append([]rpcproto.Session{}, each(list, wireSession)...)
	if err := s.addPending(ctx, out); err != nil {
		return rpcproto.SessionsResult{}, err
	}
	return rpcproto.SessionsResult{Sessions: out}, nil
}

func runSearch(ctx context.Context, s *Server, _ *call, req rpcproto.SearchRequest) (*rpcproto.SearchResult, error) {
	q := store.SearchQuery{Text: req.Query, Limit: req.Limit}
	if q.Limit <= 0 {
		q.Limit = defaultSearch
	}
	if dir := strings.TrimSpace(req.Workspace); dir != "" {
		key, err := session.WorkspaceKey(dir)
		if err != nil {
			return nil, err
		}
		q.Workspace = key
	}
	res, err := session.Search(ctx, s.opts.Store, session.SearchOptions{Query: q, Embedder: s.opts.Embedder, WordsOnly: req.WordsOnly})
	if err != nil {
		return nil, err
	}
	return wireSearch(res), nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
