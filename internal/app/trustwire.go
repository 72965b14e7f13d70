package app

import (
	"context"

	"github.com/olly-agent/olly/internal/trust"
	"github.com/olly-agent/olly/rpcproto"
)

// ProtocolTrust serves the protocol's trust commands (rpc.Trust:
// get_trust_requests, set_trust) from the app's trust requests, for RPC
// mode and the web page.
type ProtocolTrust struct{ App *App }

// TrustRequests implements rpc.Trust.
func (t ProtocolTrust) TrustRequests(ctx context.Context, sessionID string) ([]rpcproto.TrustRequest, error) {
	return wireTrustRequests(t.App.TrustRequests(ctx, sessionID))
}

// AnswerTrust implements rpc.Trust: the requests still waiting come from
// the listing the answer was checked against, not from another one.
func (t ProtocolTrust) AnswerTrust(ctx context.Context, sessionID, id, decision string) ([]rpcproto.TrustRequest, error) {
	return wireTrustRequests(t.App.AnswerTrustRest(ctx, sessionID, id, decision))
}

func wireTrustRequests(reqs []trust.Request, err error) ([]rpcproto.TrustRequest, error) {
	if err != nil {
		return nil, err
	}
	out := make([]rpcproto.TrustRequest, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, wireTrustRequest(r))
	}
	return out, nil
}

func wireTrustRequest(r trust.Request) rpcproto.TrustRequest {
	w := rpcproto.TrustRequest{ID: r.ID, Kind: r.Kind, Name: r.Name, Source: r.Source, Workspace: r.Workspace,
		Fingerprint: r.Fingerprint, Files: r.Files, Runs: make([]rpcproto.TrustRun, 0, len(r.Runs))}
	for _, run := range r.Runs {
		w.Runs = append(w.Runs, rpcproto.TrustRun{Event: run.Event, Matcher: run.Matcher, Command: run.Command, Args: run.Args, Line: run.Line,
			Env: run.Env, URL: run.URL, Transport: run.Transport, Headers: run.Headers, Timeout: run.Timeout})
	}
	return w
}
