package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

func TestQueueModesReachGetState(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	for _, line := range []string{
		`{"id":"a","type":"set_steering_mode","mode":"one-at-a-time"}`,
		`{"id":"a","type":"set_follow_up_mode","mode":"all"}`,
		`{"id":"a","type":"set_interrupt_mode","mode":"immediate"}`,
	} {
		if r := c.call(`"a"`, line); !r.Success {
			t.Fatalf("%s: %s", line, r.raw)
		}
	}
	var st rpcproto.State
	if r := c.call(`"s"`, `{"id":"s","type":"get_state"}`); json.Unmarshal(r.Data, &st) != nil {
		t.Fatalf("get_state %s", r.raw)
	}
	if st.SteeringMode != "one-at-a-time" || st.FollowUpMode != "all" || st.InterruptMode != "immediate" || st.ThinkingLevel != "off" {
		t.Errorf("state %+v", st)
	}
	for _, bad := range []string{
		`{"id":"x","type":"set_steering_mode","mode":"some"}`,
		`{"id":"x","type":"set_interrupt_mode","mode":"later"}`,
		`{"id":"x","type":"set_thinking_level","level":"high"}`, // no thinking levels in this server
	} {
		if r := c.call(`"x"`, bad); r.Success {
			t.Errorf("%s: %s", bad, r.raw)
		}
	}
}

func TestAbortAndPromptReplacesTheRunningTurn(t *testing.T) {
	r := &approvalRunner{}
	b := newBackend(t, r)
	r.approvals = b.approvals
	c := serve(t, b, nil)
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"first"}`)
	c.next("approval_requested", func(f frame) bool { return f.Type == string(event.TypeApprovalRequested) })
	res := c.call(`"ap"`, `{"id":"ap","type":"abort_and_prompt","message":"second"}`)
	if !res.Success {
		t.Fatalf("abort_and_prompt: %s", res.raw)
	}
	// The first turn ends canceled; the second starts and asks again.
	c.next("turn_finished", func(f frame) bool {
		return f.Type == string(event.TypeTurnFinished) && strings.Contains(string(f.raw), event.FinishCanceled)
	})
	c.next("second prompt", func(f frame) bool {
		return f.Type == string(event.TypeUserMessage) && strings.Contains(string(f.raw), `"second"`)
	})
	c.next("approval_requested", func(f frame) bool { return f.Type == string(event.TypeApprovalRequested) })
}
