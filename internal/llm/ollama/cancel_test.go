package ollama_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

// Goroutine leaks are checked for the whole package by TestMain.

func TestCancelWhileWaitingForTheAnswer(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Hang())
	c, sleeps := newClient(t, srv)
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
	if len(sleeps.Waits()) != 0 {
		t.Errorf("a canceled request was retried: %v", sleeps.Waits())
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
	go cancel() // Recv is (about to be) blocked on the stalled stream
	within(t, "Recv after cancel", func() { _, err = s.Recv() })
	asError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, llm.ErrCanceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := srv.WaitCanceled(wctx, 1); err != nil {
		t.Errorf("the connection was not released: %v", err)
	}
}

func TestCloseUnblocksRecv(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Stall()))
	c, _ := newClient(t, srv)
	s, err := c.Chat(context.Background(), chatReq(model))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Close() }()
	within(t, "Recv after Close", func() { _, err = s.Recv() })
	asError(t, err, llm.KindCanceled)
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := srv.WaitCanceled(wctx, 1); err != nil {
		t.Errorf("the connection was not released: %v", err)
	}
}

func TestDeadlineIsACancellation(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Delay(time.Hour)))
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var err error
	within(t, "the stream", func() {
		var s llm.Stream[llm.ChatChunk]
		if s, err = c.Chat(ctx, chatReq(model)); err == nil {
			_, err = drain(t, s)
		}
	})
	asError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap context.DeadlineExceeded", err)
	}
}

func TestFinalChunkDoesNotWaitForTheConnectionToClose(t *testing.T) {
	// A proxy may keep the response open after the final chunk; the stream
	// is over at the final chunk all the same.
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"message":{"role":"assistant","content":"hi"},"done":false}` + "\n" + `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := ollama.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Chat(context.Background(), chatReq(model))
	if err != nil {
		t.Fatal(err)
	}
	var chunks []llm.ChatChunk
	within(t, "the stream", func() { chunks, err = drain(t, s) })
	if err != nil || len(chunks) != 2 || !chunks[1].Done {
		t.Errorf("chunks %+v, %v", chunks, err)
	}
}
