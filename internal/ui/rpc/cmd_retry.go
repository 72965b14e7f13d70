package rpc

import (
	"context"

	"github.com/olly-agent/olly/rpcproto"
)

// AutoRetry is the agent's switch for retries of transient model errors.
type AutoRetry interface {
	AutoRetry(sessionID string) bool
	SetAutoRetry(sessionID string, on bool) error
	AbortRetry(sessionID string) error
}

func retryCommands() []*command {
	return []*command{
		def(rpcproto.CmdSetAutoRetry, "Turn the retries of transient model errors (connection failures, server errors, timeouts, 429) on or off for the session, for as long as this olly runs (on by default; it is not stored). On, each retry is an auto_retry_start event (attempt, maxAttempts, delayMs, errorMessage) and the end an auto_retry_end (success, attempt, finalError); off, the first failure ends the turn.", false, runSetAutoRetry),
		def(rpcproto.CmdAbortRetry, "End the retry the session is waiting for: the turn fails with the error being retried (auto_retry_end with success false). Nothing waiting: nothing happens.", false, runAbortRetry),
	}
}

func runSetAutoRetry(_ context.Context, s *Server, _ *call, req rpcproto.EnabledRequest) (rpcproto.Empty, error) {
	if s.opts.AutoRetry == nil {
		return rpcproto.Empty{}, errUnavailable(rpcproto.CmdSetAutoRetry, "this server was started without the agent's retry switch")
	}
	return rpcproto.Empty{}, s.opts.AutoRetry.SetAutoRetry(s.current(), *req.Enabled)
}

func runAbortRetry(_ context.Context, s *Server, _ *call, _ rpcproto.Empty) (rpcproto.Empty, error) {
	if s.opts.AutoRetry == nil {
		return rpcproto.Empty{}, errUnavailable(rpcproto.CmdAbortRetry, "this server was started without the agent's retry switch")
	}
	return rpcproto.Empty{}, s.opts.AutoRetry.AbortRetry(s.current())
}
