package openai_test

import (
	"context"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Goroutine leaks are checked for the whole package by TestMain.

func TestCancelWhileWaitingForTheAnswer(t *testing.T) { wiretest.CancelWhileWaiting(t, dialect()) }

func TestCancelMidStream(t *testing.T) { wiretest.CancelMidStream(t, dialect()) }

func TestTimeouts(t *testing.T) { wiretest.Timeouts(t, dialect()) }

func TestCancelGenerate(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Stall()))
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.Generate(ctx, &llm.GenerateRequest{Model: model, Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cancel()
	wiretest.Within(t, "Recv after cancel", func() { _, err = s.Recv() })
	wiretest.AsError(t, err, llm.KindCanceled)
}
