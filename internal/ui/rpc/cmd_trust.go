package rpc

import (
	"context"

	"github.com/olly-agent/olly/rpcproto"
)

// Trust lists and answers the trust prompts of a session's workspace
// (*app.App through a small adapter in internal/cli).
type Trust interface {
	TrustRequests(ctx context.Context, sessionID string) ([]rpcproto.TrustRequest, error)
	// AnswerTrust answers and gives the requests still waiting.
	AnswerTrust(ctx context.Context, sessionID, id, decision string) ([]rpcproto.TrustRequest, error)
}

func trustCommands() []*command {
	return []*command{
		def(rpcproto.CmdGetTrustRequests, "The project programs of the session's workspace that wait for a person's decision before they run — MCP servers of .mcp.json and project hook files — each with exactly what it would run and the project files whose content its fingerprint covers. Show them to the person (olly's web page shows a card).", false, runGetTrustRequests),
		def(rpcproto.CmdSetTrust, "Answer a waiting trust request with the person's decision: trust (recorded for this workspace and fingerprint), not_now (asked again in another session) or never (not asked again until the program changes). Only a request get_trust_requests lists now can be answered: one answered already or whose program changed since is an error. The result is the requests still waiting. The answer is also recorded in the session's log as a trust_resolved event, so every client showing the session takes the prompt down. Send it only for a person's answer: never on a program's own behalf.", false, runSetTrust),
	}
}

func (s *Server) trust(name string) (Trust, error) {
	if s.opts.Trust == nil {
		return nil, errUnavailable(name, "no trust store")
	}
	return s.opts.Trust, nil
}

func runGetTrustRequests(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.TrustRequestsResult, error) {
	t, err := s.trust(rpcproto.CmdGetTrustRequests)
	if err != nil {
		return rpcproto.TrustRequestsResult{}, err
	}
	reqs, err := t.TrustRequests(ctx, s.current())
	if err != nil {
		return rpcproto.TrustRequestsResult{}, err
	}
	if reqs == nil {
		reqs = []rpcproto.TrustRequest{}
	}
	return rpcproto.TrustRequestsResult{Requests: reqs}, nil
}

func runSetTrust(ctx context.Context, s *Server, _ *call, req rpcproto.SetTrustRequest) (rpcproto.TrustRequestsResult, error) {
	t, err := s.trust(rpcproto.CmdSetTrust)
	if err != nil {
		return rpcproto.TrustRequestsResult{}, err
	}
	reqs, err := t.AnswerTrust(ctx, s.current(), req.RequestID, req.Decision)
	if err != nil {
		return rpcproto.TrustRequestsResult{}, err
	}
	if reqs == nil {
		reqs = []rpcproto.TrustRequest{}
	}
	return rpcproto.TrustRequestsResult{Requests: reqs}, nil
}
