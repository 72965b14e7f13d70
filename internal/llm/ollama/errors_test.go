package ollama_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

func chatReq(m string) *llm.ChatRequest {
	return &llm.ChatRequest{Model: m, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
}

func TestChatRetriesAndStatusErrors(t *testing.T) {
	s := time.Second
	cases := []struct {
		name      string
		script    []llmtest.Response
		model     string
		tools     bool
		kind      llm.ErrorKind // KindUnknown: success
		status    int
		waits     []time.Duration
		requests  int
		msgSubstr string
	}{
		{name: "500 then success waits 1s once", script: []llmtest.Response{llmtest.Status(500, "boom"), llmtest.Reply(llmtest.Text("ok"))},
			waits: []time.Duration{s}, requests: 2},
		{name: "connection dropped before any response is retried", script: []llmtest.Response{llmtest.Disconnect(), llmtest.Reply(llmtest.Text("ok"))},
			waits: []time.Duration{s}, requests: 2},
		{name: "repeated 503 waits 1,2,4 then fails", script: []llmtest.Response{llmtest.Status(503, "busy"), llmtest.Status(503, "busy"), llmtest.Status(503, "busy"), llmtest.Status(503, "busy")},
			kind: llm.KindServer, status: 503, waits: []time.Duration{s, 2 * s, 4 * s}, requests: 4, msgSubstr: "busy"},
		{name: "401 is never retried", script: []llmtest.Response{llmtest.Status(401, "unauthorized")},
			kind: llm.KindAuth, status: 401, requests: 1, msgSubstr: "refused the credentials"},
		{name: "403 is an auth error", script: []llmtest.Response{llmtest.Status(403, "forbidden")},
			kind: llm.KindAuth, status: 403, requests: 1},
		{name: "scripted model not found", script: []llmtest.Response{llmtest.ModelNotFound()},
			kind: llm.KindModelNotFound, status: 404, requests: 1, msgSubstr: "run `ollama pull qwen3:8b`"},
		{name: "model not installed", model: "llama9:70b",
			kind: llm.KindModelNotFound, status: 404, requests: 1, msgSubstr: "run `ollama pull llama9:70b`"},
		{name: "other 4xx is a bad request", script: []llmtest.Response{llmtest.Status(400, "invalid options")},
			kind: llm.KindBadRequest, status: 400, requests: 1, msgSubstr: "invalid options"},
		{name: "context overflow", script: []llmtest.Response{llmtest.ContextOverflow()},
			kind: llm.KindContextOverflow, status: 400, requests: 1},
		{name: "tools on a model without them", model: "gemma:2b", tools: true,
			kind: llm.KindBadRequest, status: 400, requests: 1, msgSubstr: `"gemma:2b" does not support tools`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.AddModel("gemma:2b", llmtest.Caps("completion"))
			srv.Enqueue(tc.script...)
			c, sleeps := newClient(t, srv)
			m := tc.model
			if m == "" {
				m = model
			}
			req := chatReq(m)
			if tc.tools {
				req.Tools = []llm.Tool{{Name: "read_file"}}
			}
			stream, err := c.Chat(context.Background(), req)
			if err == nil {
				_, err = drain(t, stream)
			}
			if tc.kind == llm.KindUnknown {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				e := asError(t, err, tc.kind)
				want := llm.Error{Kind: tc.kind, Op: "POST /api/chat", BaseURL: srv.URL(), Model: m, StatusCode: tc.status, Dialect: "ollama"}
				got := llm.Error{Kind: e.Kind, Op: e.Op, BaseURL: e.BaseURL, Model: e.Model, StatusCode: e.StatusCode, Dialect: e.Dialect}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("error fields (-want +got):\n%s", d)
				}
				if !strings.Contains(err.Error(), tc.msgSubstr) {
					t.Errorf("message %q does not contain %q", err, tc.msgSubstr)
				}
				if e.Message == "" {
					t.Error("server message not kept")
				}
			}
			if d := cmp.Diff(tc.waits, sleeps.Waits()); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("server got %d requests, want %d", n, tc.requests)
			}
		})
	}
}

func TestConnectionRefusedSaysToStartOllama(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sleeps := &llmtest.Sleeps{}
	c, err := ollama.New(addr, ollama.WithRetry(sleeps.Policy()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), chatReq(model))
	e := asError(t, err, llm.KindConnection)
	want := "cannot reach Ollama at http://" + addr + " — is `ollama serve` running?"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q does not start with %q", err, want)
	}
	if e.StatusCode != 0 || !errors.Is(err, llm.ErrConnection) {
		t.Errorf("error %+v", e)
	}
	if d := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, sleeps.Waits()); d != "" {
		t.Errorf("waits (-want +got):\n%s", d)
	}
	for name, call := range map[string]func() error{
		"ListModels": func() error { _, err := c.ListModels(context.Background()); return err },
		"Version":    func() error { _, err := c.Version(context.Background()); return err },
	} {
		if err := call(); llm.KindOf(err) != llm.KindConnection {
			t.Errorf("%s: %v, want a connection error", name, err)
		}
	}
}

func TestStreamFailuresAreReportedNotDropped(t *testing.T) {
	cases := []struct {
		name    string
		parts   []llmtest.Part
		kind    llm.ErrorKind
		line    string
		inError []string
	}{
		{name: "truncated JSON line", parts: []llmtest.Part{llmtest.MalformedLine(`{"message":`)},
			kind: llm.KindMalformedStream, line: `{"message":`, inError: []string{"line 2", `offending line: "{\"message\":"`}},
		{name: "line that is not an object", parts: []llmtest.Part{llmtest.MalformedLine(`[1,2,3]`)},
			kind: llm.KindMalformedStream, line: `[1,2,3]`, inError: []string{"line 2", "not a JSON object"}},
		{name: "wrong type for a field", parts: []llmtest.Part{llmtest.MalformedLine(`{"message":{"content":42},"done":false}`)},
			kind: llm.KindMalformedStream, line: `{"message":{"content":42},"done":false}`, inError: []string{"line 2"}},
		{name: "server error object", parts: []llmtest.Part{llmtest.StreamError("llama runner process has terminated")},
			kind: llm.KindServer, inError: []string{"llama runner process has terminated"}},
		{name: "context overflow inside the stream", parts: []llmtest.Part{llmtest.StreamError("input length exceeds the context length")},
			kind: llm.KindContextOverflow, inError: []string{"does not fit the context window"}},
		{name: "model vanished inside the stream", parts: []llmtest.Part{llmtest.StreamError(`model "qwen3:8b" not found, try pulling it first`)},
			kind: llm.KindModelNotFound, inError: []string{"ollama pull qwen3:8b"}},
		{name: "stream ends without done", parts: []llmtest.Part{llmtest.EndEarly()},
			kind: llm.KindConnection, inError: []string{"stream ended early"}},
		{name: "connection dropped mid-stream", parts: []llmtest.Part{llmtest.DropConnection()},
			kind: llm.KindConnection, inError: []string{"is `ollama serve` running?"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Enqueue(llmtest.Reply(append([]llmtest.Part{llmtest.Text("first")}, tc.parts...)...))
			srv.Enqueue(llmtest.Reply(llmtest.Text("a retry must not happen")))
			c, sleeps := newClient(t, srv)
			s, err := c.Chat(context.Background(), chatReq(model))
			if err != nil {
				t.Fatal(err)
			}
			chunk, err := s.Recv()
			if err != nil || chunk.Content != "first" {
				t.Fatalf("first chunk %+v, %v", chunk, err)
			}
			_, err = s.Recv()
			e := asError(t, err, tc.kind)
			if e.Line != tc.line {
				t.Errorf("Line = %q, want %q", e.Line, tc.line)
			}
			for _, sub := range tc.inError {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not contain %q", err, sub)
				}
			}
			if _, again := s.Recv(); again != err {
				t.Errorf("Recv after the failure returned %v, want the same error", again)
			}
			if tc.kind == llm.KindConnection && strings.Contains(tc.name, "without done") && !errors.Is(err, wire.ErrEndedEarly) {
				t.Errorf("%v does not wrap ErrEndedEarly", err)
			}
			if len(sleeps.Waits()) != 0 || srv.Pending() != 1 {
				t.Errorf("a half-read stream was retried: waits %v, pending %d", sleeps.Waits(), srv.Pending())
			}
		})
	}
}

func TestUnscriptedRequestFailsLoudly(t *testing.T) {
	// The fake must fail the test rather than hang; here a recording TB
	// stands in for the test so that the failure can be checked.
	rec := &recordingTB{TB: t}
	srv := llmtest.New(rec)
	srv.AddModel(model)
	c, _ := newClient(t, srv)
	_, err := c.Chat(context.Background(), chatReq(model))
	asError(t, err, llm.KindServer)
	if rec.errors == 0 || !strings.Contains(err.Error(), "no scripted reply") {
		t.Errorf("errors reported %d, err %v", rec.errors, err)
	}
}

type recordingTB struct {
	testing.TB
	errors int
}

func (r *recordingTB) Errorf(string, ...any) { r.errors++ }
