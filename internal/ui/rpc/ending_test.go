package rpc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/rpcproto"
)

// windingRunner's turns emit turn_finished and then wind down until
// released (a real turn saves its memory and status after it); its
// compaction records a summary.
type windingRunner struct {
	release chan struct{}
}

func (r *windingRunner) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	for _, p := range []event.Payload{
		event.TurnStarted{Mode: "agent", Model: "m"}, event.UserMessage{Text: t.Input.Text},
		event.FinalMessage{Text: "Done"}, event.TurnFinished{Status: event.FinishDone, Iterations: 1},
	} {
		if _, err := t.Emit(ctx, p); err != nil {
			return nil, err
		}
	}
	<-r.release
	return &session.TurnResult{Turn: t.Number, Status: event.FinishDone, FinalText: "Done"}, nil
}

func (r *windingRunner) Compact(ctx context.Context, t *session.Turn, _ string) error {
	_, err := t.Emit(ctx, event.Compaction{Summary: "short", FirstKeptSeq: 1, TokensBefore: 10, TokensAfter: 2})
	return err
}

// TestCompactRightAfterTheTurnEnded: a compact sent once the client saw
// the turn finish waits for the turn to give the session back (as a
// prompt does, ending.go) instead of being refused as busy.
func TestCompactRightAfterTheTurnEnded(t *testing.T) {
	r := &windingRunner{release: make(chan struct{})}
	b := newBackend(t, r)
	c := serve(t, b, nil)
	c.next("ready", func(f frame) bool { return f.Type == rpcproto.TypeReady })
	if res := c.call(`"p1"`, `{"id":"p1","type":"prompt","message":"hello"}`); !res.Success {
		t.Fatalf("prompt: %s", res.raw)
	}
	c.next("turn_finished", func(f frame) bool { return f.Type == string(event.TypeTurnFinished) })
	c.send(`{"id":"c1","type":"compact"}`)
	// The turn winds down a while: long enough for the compact to meet it
	// (refused at once without the wait), short enough for the wait.
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(200 * time.Millisecond)
		r.release <- struct{}{}
	}()
	defer func() { <-released }()
	res := c.response(`"c1"`)
	if !res.Success || strings.Contains(string(res.raw), "busy") {
		t.Fatalf("compact right after the turn ended: %s", res.raw)
	}
	var out rpcproto.CompactResult
	if err := json.Unmarshal(res.Data, &out); err != nil || out.Summary != "short" {
		t.Errorf("compact result: %s", res.raw)
	}
}
