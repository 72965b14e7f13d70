package ollama_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const model = "qwen3:8b"

// newServer starts a fake with the test model installed.
func newServer(t *testing.T, opts ...llmtest.Option) *llmtest.Server {
	t.Helper()
	srv := llmtest.New(t, opts...)
	srv.AddModel(model, llmtest.Caps("completion", "tools", "thinking", "insert", "vision"), llmtest.ContextLength(40960))
	return srv
}

// newClient returns a client for srv whose retries record their waits.
func newClient(t *testing.T, srv *llmtest.Server, opts ...ollama.Option) (*ollama.Client, *llmtest.Sleeps) {
	t.Helper()
	sleeps := &llmtest.Sleeps{}
	opts = append([]ollama.Option{ollama.WithRetry(sleeps.Policy())}, opts...)
	c, err := ollama.New(srv.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, sleeps
}

// drain reads a stream to its end, returning the chunks and the error that
// ended it (nil for a clean io.EOF).
func drain[T any](t *testing.T, s llm.Stream[T]) ([]T, error) {
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

// asError asserts err is an *llm.Error of kind.
func asError(t *testing.T, err error, kind llm.ErrorKind) *llm.Error {
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

// within fails the test if fn does not return within a generous deadline:
// a hang is a failure, but no timing is asserted.
func within(t *testing.T, what string, fn func()) {
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

// waitUntil polls cond for up to 5 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
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
