package ollama_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

// Goroutine leaks are checked for the whole package by TestMain.

func TestCancelWhileWaitingForTheAnswer(t *testing.T) { wiretest.CancelWhileWaiting(t, dialect()) }

func TestCancelMidStream(t *testing.T) { wiretest.CancelMidStream(t, dialect()) }

func TestTimeouts(t *testing.T) { wiretest.Timeouts(t, dialect()) }

func TestCloseUnblocksRecv(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Stall()))
	c, _ := newClient(t, srv)
	s, err := c.Chat(context.Background(), wiretest.ChatReq(model))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Close() }()
	wiretest.Within(t, "Recv after Close", func() { _, err = s.Recv() })
	wiretest.AsError(t, err, llm.KindCanceled)
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	wiretest.WaitReleased(t, srv, "the connection was not released")
}

func TestDeadlineIsACancellation(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Delay(time.Hour)))
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var err error
	wiretest.Within(t, "the stream", func() {
		var s llm.Stream[llm.ChatChunk]
		if s, err = c.Chat(ctx, wiretest.ChatReq(model)); err == nil {
			_, err = wiretest.Drain(t, s)
		}
	})
	wiretest.AsError(t, err, llm.KindCanceled)
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
	s, err := c.Chat(context.Background(), wiretest.ChatReq(model))
	if err != nil {
		t.Fatal(err)
	}
	var chunks []llm.ChatChunk
	wiretest.Within(t, "the stream", func() { chunks, err = wiretest.Drain(t, s) })
	if err != nil || len(chunks) != 2 || !chunks[1].Done {
		t.Errorf("chunks %+v, %v", chunks, err)
	}
}

// After a stream's final chunk the rest of the response is read, so the
// next request goes over the same connection instead of a new one.
func TestStreamsReuseTheConnection(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"message":{"role":"assistant","content":"hi"},"done":false}` + "\n"))
		w.(http.Flusher).Flush()
		_, _ = w.Write([]byte(`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"))
		w.(http.Flusher).Flush() // as Ollama does: the end of the response follows on its own
		time.Sleep(time.Millisecond)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := ollama.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s, err := c.Chat(context.Background(), wiretest.ChatReq(model))
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := wiretest.Drain(t, s)
		if err != nil || len(chunks) != 2 || !chunks[1].Done {
			t.Fatalf("stream %d: chunks %+v, %v", i, chunks, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("3 streams used %d connections, want 1", n)
	}
}
