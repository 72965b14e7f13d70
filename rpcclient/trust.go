package rpcclient

import (
	"context"

	"github.com/olly-agent/olly/rpcproto"
)

// The trust prompts' types (docs/rpc.md: get_trust_requests, set_trust).
type (
	TrustRequestsResult = rpcproto.TrustRequestsResult
	TrustRequest        = rpcproto.TrustRequest
	TrustRun            = rpcproto.TrustRun
	SetTrustRequest     = rpcproto.SetTrustRequest
)

// GetTrustRequests lists the project MCP servers and hook files of the
// session's workspace that wait for a person's decision before they run.
func (c *Client) GetTrustRequests(ctx context.Context) (*TrustRequestsResult, error) {
	return do[TrustRequestsResult](ctx, c, rpcproto.CmdGetTrustRequests, nil)
}

// SetTrust sends a person's decision (rpcproto.TrustDecisionTrust,
// TrustDecisionNotNow, TrustDecisionNever) on a waiting request and
// returns the requests still waiting. Call it only for a person's answer.
func (c *Client) SetTrust(ctx context.Context, id, decision string) (*TrustRequestsResult, error) {
	return do[TrustRequestsResult](ctx, c, rpcproto.CmdSetTrust, SetTrustRequest{RequestID: id, Decision: decision})
}
