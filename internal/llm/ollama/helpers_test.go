package ollama_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

func TestMain(m *testing.M) {
	wiretest.ServeReplayIfAsked()
	goleak.VerifyTestMain(m)
}

const model = wiretest.Model

// newClient returns a client for srv whose retries record their waits.
func newClient(t testing.TB, srv *llmtest.Server, opts ...ollama.Option) (*ollama.Client, *llmtest.Sleeps) {
	t.Helper()
	return wiretest.NewClient(t, srv, ollama.New, ollama.WithRetry, opts...)
}

// dialect describes this client to the tests both clients share.
func dialect() wiretest.Dialect {
	return wiretest.NewDialect(ollama.Dialect, "/api/chat", ollama.New, ollama.WithRetry, ollama.WithTimeouts)
}
