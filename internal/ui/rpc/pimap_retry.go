package rpc

import (
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

// retry maps a model_retry event to pi's auto_retry_start or
// auto_retry_end.
func (m *piMapper) retry(out *emitter, p event.ModelRetry) {
	if p.Phase == event.RetryStart {
		out.add(rpcproto.PiAutoRetryStartEvent{Type: rpcproto.PiAutoRetryStart, Attempt: p.Attempt,
			MaxAttempts: p.MaxAttempts, DelayMs: p.DelayMs, ErrorMessage: p.Error})
		return
	}
	e := rpcproto.PiAutoRetryEndEvent{Type: rpcproto.PiAutoRetryEnd, Success: p.Success, Attempt: p.Attempt}
	if !p.Success {
		e.FinalError = p.Error
	}
	out.add(e)
}
