package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRetryPolicy(t *testing.T) {
	connErr := &Error{Kind: KindConnection, Dialect: "ollama"}
	authErr := &Error{Kind: KindAuth}
	tests := []struct {
		name      string
		errs      []error // returned by successive attempts; nil = success
		wantCalls int
		wantWaits []time.Duration
		wantErr   error
	}{
		{"success first time", []error{nil}, 1, nil, nil},
		{"one server error then success", []error{&Error{Kind: KindServer}, nil}, 2, []time.Duration{time.Second}, nil},
		{"gives up after three retries", []error{connErr, connErr, connErr, connErr}, 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, ErrConnection},
		{"auth is never retried", []error{authErr, nil}, 1, nil, ErrAuth},
		{"bad request is not retried", []error{&Error{Kind: KindBadRequest}}, 1, nil, ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits []time.Duration
			p := DefaultRetry()
			p.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			calls := 0
			err := p.Do(context.Background(), func() error {
				e := tt.errs[calls]
				calls++
				return e
			})
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if len(waits) != len(tt.wantWaits) {
				t.Fatalf("waits = %v, want %v", waits, tt.wantWaits)
			}
			for i := range waits {
				if waits[i] != tt.wantWaits[i] {
					t.Errorf("wait %d = %v, want %v", i, waits[i], tt.wantWaits[i])
				}
			}
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	err := RetryPolicy{Backoff: []time.Duration{time.Hour}}.Do(ctx, func() error {
		calls++
		return &Error{Kind: KindServer}
	})
	if calls != 1 || !errors.Is(err, ErrServer) {
		t.Fatalf("calls %d err %v: a canceled wait must not retry", calls, err)
	}
}

func TestErrorMessagesNameTheFix(t *testing.T) {
	tests := []struct {
		err  *Error
		want []string
	}{
		{&Error{Kind: KindConnection, Dialect: "ollama", BaseURL: "http://localhost:11434"}, []string{"cannot reach Ollama at http://localhost:11434", "ollama serve"}},
		{&Error{Kind: KindModelNotFound, Dialect: "ollama", Model: "qwen3:8b"}, []string{`model "qwen3:8b" is not installed`, "ollama pull qwen3:8b"}},
		{&Error{Kind: KindModelNotFound, Dialect: "openai", Model: "x", BaseURL: "http://h/v1"}, []string{"olly models"}},
		{&Error{Kind: KindAuth, StatusCode: 401, Dialect: "ollama", BaseURL: "u"}, []string{"HTTP 401", "OLLY_API_KEY"}},
		{&Error{Kind: KindMalformedStream, Dialect: "ollama", BaseURL: "u", Line: `{"message":`}, []string{"cannot read", `offending line: "{\"message\":"`}},
		{&Error{Kind: KindServer, StatusCode: 500, Message: "boom", Op: "POST /api/chat"}, []string{"HTTP 500", "[POST /api/chat]", ": boom"}},
	}
	for _, tt := range tests {
		msg := tt.err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v\n  missing %q", msg, w)
			}
		}
	}
}

func TestErrorIsMatchesKindSentinelsOnly(t *testing.T) {
	e := &Error{Kind: KindServer, Op: "POST /api/chat", Err: errors.New("x")}
	if !errors.Is(e, ErrServer) || errors.Is(e, ErrConnection) {
		t.Fatal("Is must match the sentinel of the error's own kind only")
	}
	other := &Error{Kind: KindServer, Op: "GET /api/tags"}
	if errors.Is(e, other) {
		t.Fatal("two concrete errors of one kind must not match")
	}
	if KindOf(errors.New("plain")) != KindUnknown || KindOf(e) != KindServer {
		t.Fatal("KindOf")
	}
}

func TestQuoteLineKeepsBothEnds(t *testing.T) {
	line := []byte("START" + strings.Repeat("x", 1000) + "END")
	q := QuoteLine(line)
	if len(q) > 260 || !strings.HasPrefix(q, "START") || !strings.HasSuffix(q, "END") || !strings.Contains(q, "bytes") {
		t.Fatalf("QuoteLine = %q", q)
	}
}
