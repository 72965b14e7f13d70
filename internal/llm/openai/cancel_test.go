package openai_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Goroutine leaks are checked for the whole package by TestMain.

func TestCancelWhileWaitingForTheAnswer(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Hang())
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitUntil(t, "the request to arrive", func() bool { return len(srv.Requests()) == 1 })
		cancel()
	}()
	var err error
	within(t, "Chat", func() { _, err = c.Chat(ctx, chatReq(model)) })
	asError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := srv.WaitCanceled(wctx, 1); err != nil {
		t.Errorf("the server never saw the client go away: %v", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("partial"), llmtest.Stall()))
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Chat(ctx, chatReq(model))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ch, err := s.Recv(); err != nil || ch.Content != "partial" {
		t.Fatalf("first chunk %+v, %v", ch, err)
	}
	go cancel()
	within(t, "Recv after cancel", func() { _, err = s.Recv() })
	asError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := srv.WaitCanceled(wctx, 1); err != nil {
		t.Errorf("the connection was not released: %v", err)
	}
}

func TestCancelGenerate(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Stall()))
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.Generate(ctx, &llm.GenerateRequest{Model: model, Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cancel()
	within(t, "Recv after cancel", func() { _, err = s.Recv() })
	asError(t, err, llm.KindCanceled)
}
