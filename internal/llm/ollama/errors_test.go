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
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
)

func TestChatRetriesAndStatusErrors(t *testing.T) {
	s := time.Second
	wiretest.StatusErrors(t, dialect(), []wiretest.StatusCase{
		{Name: "repeated 503 waits 1,2,4 then fails", Script: []llmtest.Response{llmtest.Status(503, "busy"), llmtest.Status(503, "busy"), llmtest.Status(503, "busy"), llmtest.Status(503, "busy")},
			Kind: llm.KindServer, Status: 503, Waits: []time.Duration{s, 2 * s, 4 * s}, Requests: 4, MsgSubstr: "busy"},
		{Name: "401 is never retried", Script: []llmtest.Response{llmtest.Status(401, "unauthorized")},
			Kind: llm.KindAuth, Status: 401, Requests: 1, MsgSubstr: "refused the credentials"},
		{Name: "403 is an auth error", Script: []llmtest.Response{llmtest.Status(403, "forbidden")},
			Kind: llm.KindAuth, Status: 403, Requests: 1},
		{Name: "scripted model not found", Script: []llmtest.Response{llmtest.ModelNotFound()},
			Kind: llm.KindModelNotFound, Status: 404, Requests: 1, MsgSubstr: "run `ollama pull qwen3:8b`"},
		{Name: "model not installed", Model: "llama9:70b",
			Kind: llm.KindModelNotFound, Status: 404, Requests: 1, MsgSubstr: "run `ollama pull llama9:70b`"},
		{Name: "other 4xx is a bad request", Script: []llmtest.Response{llmtest.Status(400, "invalid options")},
			Kind: llm.KindBadRequest, Status: 400, Requests: 1, MsgSubstr: "invalid options"},
		{Name: "context overflow", Script: []llmtest.Response{llmtest.ContextOverflow()},
			Kind: llm.KindContextOverflow, Status: 400, Requests: 1},
		{Name: "tools on a model without them", Model: "gemma:2b", Tools: true,
			Kind: llm.KindBadRequest, Status: 400, Requests: 1, MsgSubstr: `registry.ollama.ai/library/gemma:2b does not support tools`},
	})
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
	_, err = c.Chat(context.Background(), wiretest.ChatReq(model))
	e := wiretest.AsError(t, err, llm.KindConnection)
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
	wiretest.StreamFailures(t, dialect(), []wiretest.FailureCase{
		{Name: "truncated JSON line", Parts: []llmtest.Part{llmtest.MalformedLine(`{"message":`)},
			Kind: llm.KindMalformedStream, Line: `{"message":`, InError: []string{"line 2", `offending line: "{\"message\":"`}},
		{Name: "line that is not an object", Parts: []llmtest.Part{llmtest.MalformedLine(`[1,2,3]`)},
			Kind: llm.KindMalformedStream, Line: `[1,2,3]`, InError: []string{"line 2", "not a JSON object"}},
		{Name: "wrong type for a field", Parts: []llmtest.Part{llmtest.MalformedLine(`{"message":{"content":42},"done":false}`)},
			Kind: llm.KindMalformedStream, Line: `{"message":{"content":42},"done":false}`, InError: []string{"line 2"}},
		{Name: "server error object", Parts: []llmtest.Part{llmtest.StreamError("llama runner process has terminated")},
			Kind: llm.KindServer, InError: []string{"llama runner process has terminated"}},
		{Name: "context overflow inside the stream", Parts: []llmtest.Part{llmtest.StreamError("input length exceeds the context length")},
			Kind: llm.KindContextOverflow, InError: []string{"does not fit the context window"}},
		{Name: "model vanished inside the stream", Parts: []llmtest.Part{llmtest.StreamError(`model "qwen3:8b" not found, try pulling it first`)},
			Kind: llm.KindModelNotFound, InError: []string{"ollama pull qwen3:8b"}},
		{Name: "stream ends without done", Parts: []llmtest.Part{llmtest.EndEarly()},
			Kind: llm.KindServer, InError: []string{"stream ended early", "after 1 line,"}, NotInError: []string{"cannot reach"}, Cause: llm.ErrEndedEarly},
		{Name: "connection dropped mid-stream", Parts: []llmtest.Part{llmtest.DropConnection()},
			Kind: llm.KindConnection, InError: []string{"is `ollama serve` running?"}},
	})
}

func TestUnscriptedRequestFailsLoudly(t *testing.T) {
	// The fake must fail the test rather than hang; here a recording TB
	// stands in for the test so that the failure can be checked.
	rec := &recordingTB{TB: t}
	srv := llmtest.New(rec)
	srv.AddModel(model)
	c, _ := newClient(t, srv)
	_, err := c.Chat(context.Background(), wiretest.ChatReq(model))
	wiretest.AsError(t, err, llm.KindServer)
	if rec.errors == 0 || !strings.Contains(err.Error(), "no scripted reply") {
		t.Errorf("errors reported %d, err %v", rec.errors, err)
	}
}

type recordingTB struct {
	testing.TB
	errors int
}

func (r *recordingTB) Errorf(string, ...any) { r.errors++ }

// Both of Ollama's refusals of a prompt longer than num_ctx are overflows,
// and the runner's JSON passed on inside a string is read, not shown raw.
func TestOverlongPromptRefusals(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("small", llmtest.ContextLength(4096))
	srv.AddModel("rigid", llmtest.ContextLength(4096), llmtest.NoShift())
	c, _ := newClient(t, srv)
	long := strings.Repeat("word ", 2000)
	no := false
	for _, tc := range []struct {
		name, model string
		truncate    *bool
		want        string
	}{
		{"truncate false", "small", &no, "the request exceeds the available context size, try increasing it"},
		{"no context shift", "rigid", nil, "the prompt is longer than the context length currently available to the model"},
	} {
		req := &llm.ChatRequest{Model: tc.model, Truncate: tc.truncate, Options: llm.Options{NumCtx: llm.Ptr(512)},
			Messages: []llm.Message{{Role: llm.RoleUser, Content: long}}}
		_, err := c.Chat(context.Background(), req)
		e := wiretest.AsError(t, err, llm.KindContextOverflow)
		if !strings.HasPrefix(e.Message, tc.want) || strings.Contains(err.Error(), `{"`) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if got := srv.LastRequest("/api/chat"); string(got.Fields["truncate"]) != "" {
		t.Errorf("truncate sent when not asked: %s", got.Fields["truncate"])
	}
}

func TestToolsUnsupported(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.AddModel("gemma:2b", llmtest.Caps("completion"))
	c, _ := newClient(t, srv)
	req := wiretest.ChatReq("gemma:2b")
	req.Tools = []llm.Tool{{Name: "f"}}
	_, err := c.Chat(context.Background(), req)
	if !llm.ToolsUnsupported(err) {
		t.Errorf("%v not recognised as a model without tools", err)
	}
	if llm.ToolsUnsupported(errors.New("does not support tools")) || llm.ToolsUnsupported(nil) {
		t.Error("only a server's refusal counts")
	}
}
