// Package wiretest holds what the tests of both model-server clients
// share: the helpers that build a fake server and a client, drain streams
// and check errors, and the test bodies that are the same for both
// dialects once the dialect's paths and names are given (see Dialect).
package wiretest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Model is the model NewServer installs.
const Model = "qwen3:8b"

// NewServer starts a fake with Model installed, with every capability a
// chat test needs.
func NewServer(t testing.TB, opts ...llmtest.Option) *llmtest.Server {
	t.Helper()
	srv := llmtest.New(t, opts...)
	srv.AddModel(Model, llmtest.Caps("completion", "tools", "thinking", "insert", "vision"), llmtest.ContextLength(40960))
	return srv
}

// NewClient builds a client for srv with the dialect's New, its retries
// recorded by the returned Sleeps instead of waited for; opts come after
// the retry policy and may replace it.
func NewClient[C any, O any](t testing.TB, srv *llmtest.Server, newClient func(string, ...O) (C, error), withRetry func(llm.RetryPolicy) O, opts ...O) (C, *llmtest.Sleeps) {
	t.Helper()
	sleeps := &llmtest.Sleeps{}
	opts = append([]O{withRetry(sleeps.Policy())}, opts...)
	c, err := newClient(srv.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, sleeps
}

// ChatReq is the smallest chat request for model m.
func ChatReq(m string) *llm.ChatRequest {
	return &llm.ChatRequest{Model: m, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
}

// Drain reads a stream to its end and closes it, returning the chunks and
// the error that ended it (nil for a clean io.EOF). A stream that never
// ends fails the test.
func Drain[T any](t testing.TB, s llm.Stream[T]) ([]T, error) {
	t.Helper()
	defer s.Close()
	var out []T
	for i := 0; i < 1_000_000; i++ {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	t.Fatal("stream never ended")
	return nil, nil
}

// Chat sends req and drains the answer; any error fails the test.
func Chat(t testing.TB, c llm.Provider, req *llm.ChatRequest) []llm.ChatChunk {
	t.Helper()
	s, err := c.Chat(context.Background(), req)
	return mustDrain(t, s, err)
}

// Generate sends req and drains the answer; any error fails the test.
func Generate(t testing.TB, c llm.Provider, req *llm.GenerateRequest) []llm.GenerateChunk {
	t.Helper()
	s, err := c.Generate(context.Background(), req)
	return mustDrain(t, s, err)
}

// mustDrain drains the stream a request opened, failing the test on the
// request's error or the stream's.
func mustDrain[T any](t testing.TB, s llm.Stream[T], err error) []T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := Drain(t, s)
	if err != nil {
		t.Fatal(err)
	}
	return chunks
}

// AsError asserts that err is an *llm.Error of kind and returns it.
func AsError(t testing.TB, err error, kind llm.ErrorKind) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("kind = %v, want %v; error: %v", e.Kind, kind, err)
	}
	return e
}

// Within fails the test if fn does not return within a generous deadline:
// a hang is a failure, but no timing is asserted.
func Within(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10s", what)
	}
}

// WaitUntil polls cond for up to 5 s.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(time.Millisecond):
		}
	}
}

// ServeBody starts a server that answers every request with body, for
// streams the fake does not write byte for byte. It is closed when the
// test ends.
func ServeBody(t testing.TB, contentType string, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}
