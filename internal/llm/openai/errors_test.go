package openai_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/openai"
)

func TestChatRetriesAndStatusErrors(t *testing.T) {
	s := time.Second
	cases := []struct {
		name      string
		script    []llmtest.Response
		model     string
		kind      llm.ErrorKind
		status    int
		waits     []time.Duration
		requests  int
		msgSubstr string
	}{
		{name: "500 then success", script: []llmtest.Response{llmtest.Status(500, "boom"), llmtest.Reply(llmtest.Text("ok"))},
			waits: []time.Duration{s}, requests: 2},
		{name: "disconnect then success", script: []llmtest.Response{llmtest.Disconnect(), llmtest.Reply(llmtest.Text("ok"))},
			waits: []time.Duration{s}, requests: 2},
		{name: "repeated 502", script: []llmtest.Response{llmtest.Status(502, "bad gateway"), llmtest.Status(502, "bad gateway"), llmtest.Status(502, "bad gateway"), llmtest.Status(502, "bad gateway")},
			kind: llm.KindServer, status: 502, waits: []time.Duration{s, 2 * s, 4 * s}, requests: 4, msgSubstr: "bad gateway"},
		{name: "401 never retried", script: []llmtest.Response{llmtest.Status(401, "Incorrect API key provided")},
			kind: llm.KindAuth, status: 401, requests: 1, msgSubstr: "Incorrect API key provided"},
		{name: "scripted model not found", script: []llmtest.Response{llmtest.ModelNotFound()},
			kind: llm.KindModelNotFound, status: 404, requests: 1, msgSubstr: "check `olly models`"},
		{name: "model not served", model: "gpt-9",
			kind: llm.KindModelNotFound, status: 404, requests: 1, msgSubstr: "does not exist"},
		{name: "llama.cpp context overflow", script: []llmtest.Response{llmtest.ContextOverflow()},
			kind: llm.KindContextOverflow, status: 400, requests: 1, msgSubstr: "exceeds the available context size"},
		{name: "400", script: []llmtest.Response{llmtest.Status(400, "'messages' is required")},
			kind: llm.KindBadRequest, status: 400, requests: 1, msgSubstr: "'messages' is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Enqueue(tc.script...)
			c, sleeps := newClient(t, srv)
			m := tc.model
			if m == "" {
				m = model
			}
			stream, err := c.Chat(context.Background(), chatReq(m))
			if err == nil {
				_, err = drain(t, stream)
			}
			if tc.kind == llm.KindUnknown {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				e := asError(t, err, tc.kind)
				want := llm.Error{Kind: tc.kind, Op: "POST /v1/chat/completions", BaseURL: srv.URL(), Model: m, StatusCode: tc.status, Dialect: "openai"}
				got := llm.Error{Kind: e.Kind, Op: e.Op, BaseURL: e.BaseURL, Model: e.Model, StatusCode: e.StatusCode, Dialect: e.Dialect}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("error fields (-want +got):\n%s", d)
				}
				if !strings.Contains(err.Error(), tc.msgSubstr) {
					t.Errorf("message %q does not contain %q", err, tc.msgSubstr)
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

// Error bodies of the servers the fake does not imitate byte for byte.
func TestErrorBodiesOfOtherServers(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		kind   llm.ErrorKind
		msg    string
	}{
		{name: "vLLM top-level error", status: 404, body: `{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`, kind: llm.KindModelNotFound, msg: "The model `x` does not exist."},
		{name: "vLLM context length", status: 400, body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens","type":"BadRequestError","code":400}`, kind: llm.KindContextOverflow, msg: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"},
		{name: "OpenAI context length code", status: 400, body: `{"error":{"message":"too many tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, kind: llm.KindContextOverflow, msg: "too many tokens"},
		{name: "bare string error", status: 500, body: `{"error":"model runner crashed"}`, kind: llm.KindServer, msg: "model runner crashed"},
		{name: "FastAPI detail (OpenWebUI)", status: 401, body: `{"detail":"Not authenticated"}`, kind: llm.KindAuth, msg: "Not authenticated"},
		{name: "proxy HTML page", status: 503, body: "<html>\n<body>Service Unavailable</body>\n</html>", kind: llm.KindServer, msg: "<html> <body>Service Unavailable</body> </html>"},
		{name: "empty body", status: 429, body: "", kind: llm.KindBadRequest, msg: "Too Many Requests"},
		{name: "endpoint missing", status: 404, body: "404 page not found", kind: llm.KindBadRequest, msg: "404 page not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, err := openai.New(srv.URL, openai.WithRetry(llm.RetryPolicy{}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Chat(context.Background(), chatReq("x"))
			e := asError(t, err, tc.kind)
			if e.Message != tc.msg || e.StatusCode != tc.status {
				t.Errorf("Message %q status %d, want %q %d", e.Message, e.StatusCode, tc.msg, tc.status)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sleeps := &llmtest.Sleeps{}
	c, err := openai.New("http://"+addr+"/v1", openai.WithRetry(sleeps.Policy()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), chatReq(model))
	asError(t, err, llm.KindConnection)
	if !strings.HasPrefix(err.Error(), "cannot reach the model server at http://"+addr+" — is the server running, and is baseUrl right?") {
		t.Errorf("message %q", err)
	}
	if len(sleeps.Waits()) != 3 {
		t.Errorf("waits %v", sleeps.Waits())
	}
}

func TestStreamFailures(t *testing.T) {
	cases := []struct {
		name    string
		parts   []llmtest.Part
		kind    llm.ErrorKind
		line    string
		inError []string
	}{
		{name: "truncated JSON event", parts: []llmtest.Part{llmtest.MalformedLine(`{"choices":[`)},
			kind: llm.KindMalformedStream, line: `{"choices":[`, inError: []string{"line 5"}},
		{name: "event that is not an object", parts: []llmtest.Part{llmtest.MalformedLine(`hello`)},
			kind: llm.KindMalformedStream, line: `hello`, inError: []string{"not a JSON object"}},
		{name: "error object inside the stream", parts: []llmtest.Part{llmtest.StreamError("upstream timed out")},
			kind: llm.KindServer, inError: []string{"upstream timed out"}},
		{name: "context overflow inside the stream", parts: []llmtest.Part{llmtest.StreamError("This model's maximum context length is 8192 tokens")},
			kind: llm.KindContextOverflow},
		{name: "ends without finish or DONE", parts: []llmtest.Part{llmtest.EndEarly()},
			kind: llm.KindConnection, inError: []string{"stream ended early"}},
		{name: "dropped connection", parts: []llmtest.Part{llmtest.DropConnection()},
			kind: llm.KindConnection},
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
			if ch, err := s.Recv(); err != nil || ch.Content != "first" {
				t.Fatalf("first chunk %+v, %v", ch, err)
			}
			_, err = s.Recv()
			e := asError(t, err, tc.kind)
			if e.Line != tc.line {
				t.Errorf("Line %q, want %q", e.Line, tc.line)
			}
			for _, sub := range tc.inError {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("%q does not contain %q", err, sub)
				}
			}
			if _, again := s.Recv(); again != err {
				t.Errorf("Recv after failure: %v", again)
			}
			if len(sleeps.Waits()) != 0 || srv.Pending() != 1 {
				t.Errorf("a half-read stream was retried")
			}
		})
	}
}

func TestEventTypeError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\nevent: error\ndata: {\"message\":\"overloaded\",\"type\":\"server_error\"}\n\n"))
	}))
	defer srv.Close()
	c, _ := openai.New(srv.URL)
	s, err := c.Chat(context.Background(), chatReq("x"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, s)
	e := asError(t, err, llm.KindServer)
	if len(chunks) != 1 || e.Message != "overloaded" {
		t.Errorf("chunks %+v, error %v", chunks, err)
	}
}

func TestFinishWithoutDoneIsAccepted(t *testing.T) {
	// Some servers close the stream after the finish reason without
	// sending [DONE]; nothing is missing, so that is a normal end.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(": keep-alive\n\ndata:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n"))
	}))
	defer srv.Close()
	c, _ := openai.New(srv.URL)
	s, err := c.Chat(context.Background(), chatReq("x"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, s)
	if err != nil || len(chunks) != 2 || chunks[0].Content != "a" || !chunks[1].Done {
		t.Errorf("chunks %+v, %v", chunks, err)
	}
}
