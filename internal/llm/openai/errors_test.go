package openai_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/openai"
)

func TestChatRetriesAndStatusErrors(t *testing.T) {
	s := time.Second
	wiretest.StatusErrors(t, dialect(), []wiretest.StatusCase{
		{Name: "repeated 502", Script: []llmtest.Response{llmtest.Status(502, "bad gateway"), llmtest.Status(502, "bad gateway"), llmtest.Status(502, "bad gateway"), llmtest.Status(502, "bad gateway")},
			Kind: llm.KindServer, Status: 502, Waits: []time.Duration{s, 2 * s, 4 * s}, Requests: 4, MsgSubstr: "bad gateway"},
		{Name: "401 never retried", Script: []llmtest.Response{llmtest.Status(401, "Incorrect API key provided")},
			Kind: llm.KindAuth, Status: 401, Requests: 1, MsgSubstr: "Incorrect API key provided"},
		{Name: "scripted model not found", Script: []llmtest.Response{llmtest.ModelNotFound()},
			Kind: llm.KindModelNotFound, Status: 404, Requests: 1, MsgSubstr: "check `olly models`"},
		{Name: "model not served", Model: "gpt-9",
			Kind: llm.KindModelNotFound, Status: 404, Requests: 1, MsgSubstr: "model 'gpt-9' not found"},
		{Name: "llama.cpp context overflow", Script: []llmtest.Response{llmtest.ContextOverflow()},
			Kind: llm.KindContextOverflow, Status: 400, Requests: 1, MsgSubstr: "exceeds the available context size"},
		{Name: "400", Script: []llmtest.Response{llmtest.Status(400, "'messages' is required")},
			Kind: llm.KindBadRequest, Status: 400, Requests: 1, MsgSubstr: "'messages' is required"},
	})
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
			_, err = c.Chat(context.Background(), wiretest.ChatReq("x"))
			e := wiretest.AsError(t, err, tc.kind)
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
	_, err = c.Chat(context.Background(), wiretest.ChatReq(model))
	wiretest.AsError(t, err, llm.KindConnection)
	if !strings.HasPrefix(err.Error(), "cannot reach the model server at http://"+addr+" — is the server running, and is baseUrl right?") {
		t.Errorf("message %q", err)
	}
	if len(sleeps.Waits()) != 3 {
		t.Errorf("waits %v", sleeps.Waits())
	}
}

func TestStreamFailures(t *testing.T) {
	wiretest.StreamFailures(t, dialect(), []wiretest.FailureCase{
		{Name: "truncated JSON event", Parts: []llmtest.Part{llmtest.MalformedLine(`{"choices":[`)},
			Kind: llm.KindMalformedStream, Line: `{"choices":[`, InError: []string{"line 5"}},
		{Name: "event that is not an object", Parts: []llmtest.Part{llmtest.MalformedLine(`hello`)},
			Kind: llm.KindMalformedStream, Line: `hello`, InError: []string{"not a JSON object"}},
		{Name: "error object inside the stream", Parts: []llmtest.Part{llmtest.StreamError("upstream timed out")},
			Kind: llm.KindServer, InError: []string{"upstream timed out"}},
		{Name: "context overflow inside the stream", Parts: []llmtest.Part{llmtest.StreamError("This model's maximum context length is 8192 tokens")},
			Kind: llm.KindContextOverflow},
		{Name: "ends without finish or DONE", Parts: []llmtest.Part{llmtest.EndEarly()},
			Kind: llm.KindServer, InError: []string{"stream ended early"}, Cause: llm.ErrEndedEarly},
		{Name: "dropped connection", Parts: []llmtest.Part{llmtest.DropConnection()},
			Kind: llm.KindConnection},
	})
}

func TestEventTypeError(t *testing.T) {
	srv := wiretest.ServeBody(t, "text/event-stream", []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\nevent: error\ndata: {\"message\":\"overloaded\",\"type\":\"server_error\"}\n\n"))
	c, _ := openai.New(srv.URL)
	s, err := c.Chat(context.Background(), wiretest.ChatReq("x"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := wiretest.Drain(t, s)
	e := wiretest.AsError(t, err, llm.KindServer)
	if len(chunks) != 1 || e.Message != "overloaded" {
		t.Errorf("chunks %+v, error %v", chunks, err)
	}
}

func TestFinishWithoutDoneIsAccepted(t *testing.T) {
	// Some servers close the stream after the finish reason without
	// sending [DONE]; nothing is missing, so that is a normal end.
	srv := wiretest.ServeBody(t, "text/event-stream", []byte(": keep-alive\n\ndata:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n"))
	c, _ := openai.New(srv.URL)
	s, err := c.Chat(context.Background(), wiretest.ChatReq("x"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := wiretest.Drain(t, s)
	if err != nil || len(chunks) != 2 || chunks[0].Content != "a" || !chunks[1].Done {
		t.Errorf("chunks %+v, %v", chunks, err)
	}
}
