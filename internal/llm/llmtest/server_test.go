package llmtest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// These tests speak raw HTTP to the fake, to pin its wire format without
// going through the clients it exists to test.

func do(t *testing.T, srv *llmtest.Server, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// lines splits an NDJSON body into decoded objects.
func lines(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// events splits an SSE body into data payloads, checking the framing.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for _, block := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(block, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("event %q is not one data line", block)
		}
		out = append(out, data)
	}
	return out
}

func newServer(t *testing.T, opts ...llmtest.Option) *llmtest.Server {
	srv := llmtest.New(t, opts...)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools", "thinking", "insert"), llmtest.ContextLength(40960))
	return srv
}

func TestOllamaChatFraming(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Thinking("plan"), llmtest.Text("Hi"), llmtest.ToolCall("read_file", `{"path":"a.go"}`), llmtest.Usage(12, 3)))
	resp, body := do(t, srv, "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ls := lines(t, body)
	if len(ls) != 4 {
		t.Fatalf("%d lines: %s", len(ls), body)
	}
	for i, l := range ls {
		if l["model"] != "qwen3:8b" || l["done"] != (i == 3) {
			t.Errorf("line %d: %v", i, l)
		}
		if _, err := time.Parse(time.RFC3339Nano, l["created_at"].(string)); err != nil {
			t.Errorf("created_at: %v", err)
		}
		if msg := l["message"].(map[string]any); msg["role"] != "assistant" || msg["content"] == nil {
			t.Errorf("line %d message %v", i, msg)
		}
	}
	if ls[0]["message"].(map[string]any)["thinking"] != "plan" || ls[1]["message"].(map[string]any)["content"] != "Hi" {
		t.Errorf("deltas: %v %v", ls[0], ls[1])
	}
	call := ls[2]["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if call["id"] != "call_1" || fn["name"] != "read_file" || fn["index"] != 0.0 || fn["arguments"].(map[string]any)["path"] != "a.go" {
		t.Errorf("tool call %v", call)
	}
	final := ls[3]
	want := map[string]any{"done_reason": "stop", "total_duration": 6e6, "load_duration": 1e6, "prompt_eval_count": 12.0, "prompt_eval_duration": 2e6, "eval_count": 3.0, "eval_duration": 3e6}
	for k, v := range want {
		if final[k] != v {
			t.Errorf("final %s = %v, want %v", k, final[k], v)
		}
	}
}

func TestOllamaGenerateAndNonStreaming(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("a"), llmtest.Text("b")), llmtest.Reply(llmtest.Text("a"), llmtest.Text("b")))
	_, body := do(t, srv, "POST", "/api/generate", `{"model":"qwen3:8b","prompt":"x","suffix":"y"}`)
	ls := lines(t, body)
	if len(ls) != 3 || ls[0]["response"] != "a" || ls[2]["done"] != true || ls[2]["context"] == nil || ls[2]["response"] != "" {
		t.Errorf("generate lines %s", body)
	}
	_, body = do(t, srv, "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"x"}],"stream":false}`)
	var whole map[string]any
	if err := json.Unmarshal(body, &whole); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if whole["message"].(map[string]any)["content"] != "ab" || whole["done"] != true {
		t.Errorf("non-streamed chat %s", body)
	}
}

func TestOpenAIChatFraming(t *testing.T) {
	args := `{"path":"main.go","content":"package main\nfunc main() {}\n"}`
	srv := newServer(t, llmtest.WithFlavor(llmtest.FlavorLlamaCpp))
	srv.Enqueue(llmtest.Reply(llmtest.Thinking("r"), llmtest.Text("Hi"), llmtest.ToolCall("write_file", args), llmtest.Usage(12, 3)))
	resp, body := do(t, srv, "POST", "/v1/chat/completions", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	evs := events(t, body)
	if evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("last event %q", evs[len(evs)-1])
	}
	var chunks []map[string]any
	for _, e := range evs[:len(evs)-1] {
		var m map[string]any
		if err := json.Unmarshal([]byte(e), &m); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, m)
	}
	var argText, finish string
	fragments := 0
	for i, c := range chunks {
		if c["object"] != "chat.completion.chunk" || c["id"] != chunks[0]["id"] || c["model"] != "qwen3:8b" || c["created"] == nil {
			t.Errorf("chunk %d envelope %v", i, c)
		}
		if _, ok := c["usage"]; !ok {
			t.Errorf("chunk %d has no usage key", i)
		}
		choices := c["choices"].([]any)
		if i == len(chunks)-1 {
			u := c["usage"].(map[string]any)
			if len(choices) != 0 || u["prompt_tokens"] != 12.0 || u["completion_tokens"] != 3.0 || u["total_tokens"] != 15.0 {
				t.Errorf("usage chunk %v", c)
			}
			continue
		}
		ch := choices[0].(map[string]any)
		delta := ch["delta"].(map[string]any)
		if i == 0 && (delta["role"] != "assistant" || delta["content"] != "") {
			t.Errorf("first delta %v", delta)
		}
		if r, ok := ch["finish_reason"].(string); ok {
			finish = r
		}
		for _, tc := range asSlice(delta["tool_calls"]) {
			fn := tc.(map[string]any)["function"].(map[string]any)
			argText += fn["arguments"].(string)
			fragments++
		}
	}
	if argText != args || fragments < 3 || finish != "tool_calls" {
		t.Errorf("arguments %q in %d fragments, finish %q", argText, fragments, finish)
	}
	if !strings.Contains(string(body), `"reasoning_content":"r"`) {
		t.Error("llama.cpp flavor does not send reasoning_content")
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestOpenAIWithoutUsageAndWhole(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("a")), llmtest.Reply(llmtest.Text("a"), llmtest.Text("b")), llmtest.Reply(llmtest.Text("x"), llmtest.DoneReason("length")))
	_, body := do(t, srv, "POST", "/v1/chat/completions", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}],"stream":true}`)
	if strings.Contains(string(body), "usage") {
		t.Errorf("usage sent without stream_options: %s", body)
	}
	_, body = do(t, srv, "POST", "/v1/chat/completions", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}`)
	var whole struct {
		Object  string `json:"object"`
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	if err := json.Unmarshal(body, &whole); err != nil || whole.Object != "chat.completion" || whole.Choices[0].Message["content"] != "ab" || whole.Usage["total_tokens"] == 0 {
		t.Errorf("whole chat %s (%v)", body, err)
	}
	_, body = do(t, srv, "POST", "/v1/completions", `{"model":"qwen3:8b","prompt":"p","stream":true}`)
	evs := events(t, body)
	if !strings.Contains(evs[0], `"object":"text_completion"`) || !strings.Contains(evs[0], `"text":"x"`) || !strings.Contains(evs[1], `"finish_reason":"length"`) || evs[2] != "[DONE]" {
		t.Errorf("completion events %q", evs)
	}
}

func TestNotFoundBodiesMatchTheRealServers(t *testing.T) {
	srv := newServer(t)
	cases := []struct{ method, path, body, want string }{
		{"POST", "/api/chat", `{"model":"x","messages":[{"role":"user","content":"a"}]}`, `{"error":"model 'x' not found"}`},
		{"POST", "/api/generate", `{"model":"x","prompt":"a"}`, `{"error":"model 'x' not found"}`},
		{"POST", "/api/show", `{"model":"x"}`, `{"error":"model 'x' not found"}`},
		{"POST", "/api/embed", `{"model":"x","input":"a"}`, `{"error":"model \"x\" not found, try pulling it first"}`},
		{"POST", "/v1/chat/completions", `{"model":"x","messages":[]}`, `{"error":{"message":"model 'x' not found","type":"not_found_error","param":null,"code":null}}`},
	}
	for _, tc := range cases {
		resp, body := do(t, srv, tc.method, tc.path, tc.body)
		if resp.StatusCode != 404 || strings.TrimSpace(string(body)) != tc.want {
			t.Errorf("%s: %d %s", tc.path, resp.StatusCode, body)
		}
	}
	if resp, body := do(t, srv, "GET", "/api/nothing", ""); resp.StatusCode != 404 || !strings.Contains(string(body), "404 page not found") {
		t.Errorf("unknown path: %d %s", resp.StatusCode, body)
	}
	if _, body := do(t, srv, "GET", "/", ""); string(body) != "Ollama is running" {
		t.Errorf("root: %s", body)
	}
}

func TestUnscriptedRequestsFailTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	srv := llmtest.New(rec)
	srv.AddModel("m")
	resp, body := do(t, srv, "POST", "/api/chat", `{"model":"m","messages":[{"role":"user","content":"a"}]}`)
	if resp.StatusCode != 500 || !strings.Contains(string(body), "no scripted reply for POST /api/chat") || len(rec.msgs) != 1 {
		t.Errorf("status %d body %s errors %q", resp.StatusCode, body, rec.msgs)
	}
	resp, _ = do(t, srv, "POST", "/api/embed", `{"model":"m","input":"a"}`)
	if resp.StatusCode != 500 || len(rec.msgs) != 2 || !strings.Contains(rec.msgs[1], "SetEmbedder") {
		t.Errorf("embed without embedder: %d %q", resp.StatusCode, rec.msgs)
	}
}

type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestQueuesHandlerAndRecordedRequests(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("from queue")))
	srv.EnqueueFor("/v1/chat/completions", llmtest.Reply(llmtest.Text("from path queue")))
	srv.Handle(func(r *llmtest.Request) llmtest.Response {
		return llmtest.Reply(llmtest.Text("echo: " + r.LastMessage().Content))
	})
	if srv.Pending() != 2 {
		t.Errorf("Pending = %d", srv.Pending())
	}
	chat := func(path, content string) string {
		body := `{"model":"qwen3:8b","messages":[{"role":"user","content":"` + content + `"}],"stream":false}`
		_, out := do(t, srv, "POST", path, body)
		return string(out)
	}
	for _, tc := range []struct{ path, in, want string }{
		{"/v1/chat/completions", "1", "from path queue"},
		{"/api/chat", "2", "from queue"},
		{"/api/chat", "3", "echo: 3"},
		{"/v1/chat/completions", "4", "echo: 4"},
	} {
		if got := chat(tc.path, tc.in); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %s, want %q", tc.path, tc.in, got, tc.want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[0].Dialect != "openai" || reqs[1].Dialect != "ollama" || reqs[2].Messages[0].Content != "3" || reqs[1].Stream {
		t.Errorf("recorded %+v", reqs)
	}
}

// Requests for structured output take AnswerStructured's answer, in
// either dialect, and leave the queue for the rest.
func TestAnswerStructured(t *testing.T) {
	srv := newServer(t)
	srv.AnswerStructured(llmtest.Reply(llmtest.Text(`{"label":"x"}`)))
	srv.Enqueue(llmtest.Reply(llmtest.Text("queued")))
	for _, tc := range []struct{ path, body, want string }{
		{"/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"a"}],"format":"json","stream":false}`, `label`},
		{"/v1/chat/completions", `{"model":"qwen3:8b","messages":[{"role":"user","content":"b"}],"response_format":{"type":"json_object"}}`, `label`},
		{"/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"c"}],"stream":false}`, `queued`},
	} {
		if _, out := do(t, srv, "POST", tc.path, tc.body); !strings.Contains(string(out), tc.want) {
			t.Errorf("%s %s: %s, want %q", tc.path, tc.body, out, tc.want)
		}
	}
	if srv.Pending() != 0 {
		t.Errorf("Pending = %d", srv.Pending())
	}
}

func TestConcurrentRequests(t *testing.T) {
	srv := newServer(t)
	srv.Handle(func(r *llmtest.Request) llmtest.Response {
		return llmtest.Reply(llmtest.Delay(time.Millisecond), llmtest.Text(r.LastMessage().Content))
	})
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/api/chat"
			if i%2 == 1 {
				path = "/v1/chat/completions"
			}
			want := fmt.Sprintf("msg-%d", i)
			resp, err := srv.Client().Post(srv.URL()+path, "application/json", strings.NewReader(`{"model":"qwen3:8b","stream":true,"messages":[{"role":"user","content":"`+want+`"}]}`))
			if err != nil {
				errs <- err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), want) {
				errs <- string(body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(srv.Requests()); n != 40 {
		t.Errorf("%d requests recorded", n)
	}
}

func TestHangRecordsTheCancel(t *testing.T) {
	srv := newServer(t)
	srv.Enqueue(llmtest.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/api/chat", strings.NewReader(`{"model":"qwen3:8b","messages":[{"role":"user","content":"a"}]}`))
	done := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	for len(srv.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("request succeeded")
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := srv.WaitCanceled(wctx, 1); err != nil || srv.Canceled() != 1 {
		t.Errorf("cancel not seen: %v, %d", err, srv.Canceled())
	}
}

func TestTokenRequired(t *testing.T) {
	srv := newServer(t, llmtest.WithToken("t0k"))
	resp, body := do(t, srv, "GET", "/api/tags", "")
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"error":"unauthorized`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	resp, body = do(t, srv, "GET", "/v1/models", "")
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"code":"invalid_api_key"`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestRequestDecoding(t *testing.T) {
	srv := newServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Response { return llmtest.Reply(llmtest.Text("ok")) })
	do(t, srv, "POST", "/v1/chat/completions", `{"model":"qwen3:8b","stream":true,"stop":"END","max_completion_tokens":9,
		"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object"}}},"reasoning_effort":"low",
		"messages":[{"role":"user","content":[{"type":"text","text":"see "},{"type":"image_url","image_url":{"url":"data:image/png;base64,aW1n"}}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},
		{"role":"tool","tool_call_id":"c1","name":"f","content":"r"}]}`)
	got := srv.LastRequest("/v1/chat/completions")
	want := []llm.Message{
		{Role: llm.RoleUser, Content: "see ", Images: [][]byte{[]byte("img")}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}},
		{Role: llm.RoleTool, Content: "r", ToolName: "f", ToolCallID: "c1"},
	}
	if d := cmp.Diff(want, got.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"END"}, got.Options.Stop); d != "" || *got.Options.NumPredict != 9 || string(got.Format) != `{"type":"object"}` || got.Think.Level != "low" || !got.Stream {
		t.Errorf("decoded %+v", got)
	}
	resp, body := do(t, srv, "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"a","images":["not base64!"]}]}`)
	if resp.StatusCode != 400 || srv.LastRequest("/api/chat").DecodeErr == nil {
		t.Errorf("bad image: %d %s", resp.StatusCode, body)
	}
	do(t, srv, "POST", "/api/chat", `{"model":"qwen3","messages":[{"role":"user","content":"a"}],"keep_alive":-1,"think":"high"}`)
	if r := srv.LastRequest("/api/chat"); r.KeepAlive != "-1" || r.Think.Level != "high" || string(r.Fields["keep_alive"]) != "-1" {
		t.Errorf("decoded %+v", r)
	}
}

func TestModelNamesAndLoading(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:latest")
	resp, body := do(t, srv, "POST", "/api/chat", `{"model":"qwen3","messages":[],"keep_alive":"5m"}`)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"done_reason":"load"`) {
		t.Errorf("load: %d %s", resp.StatusCode, body)
	}
	_, ps := do(t, srv, "GET", "/api/ps", "")
	if !strings.Contains(string(ps), `"name":"qwen3:latest"`) {
		t.Errorf("ps after load: %s", ps)
	}
	_, body = do(t, srv, "POST", "/api/chat", `{"model":"qwen3","messages":[],"keep_alive":0}`)
	if !strings.Contains(string(body), `"done_reason":"unload"`) {
		t.Errorf("unload: %s", body)
	}
	_, ps = do(t, srv, "GET", "/api/ps", "")
	if string(ps) != "{\"models\":[]}\n" {
		t.Errorf("ps after unload: %s", ps)
	}
}

func TestHashEmbedder(t *testing.T) {
	e := llmtest.HashEmbedder(64)
	a, b, c := e("", "read the config file"), e("", "read the config file please"), e("", "quantum chromodynamics lattice")
	cos := func(x, y []float32) (s float32) {
		for i := range x {
			s += x[i] * y[i]
		}
		return s
	}
	if d := cmp.Diff(a, e("m", "read the config file")); d != "" {
		t.Error("not deterministic")
	}
	if n := cos(a, a); n < 0.999 || n > 1.001 {
		t.Errorf("not normalised: %v", n)
	}
	if cos(a, b) <= cos(a, c) {
		t.Errorf("similar texts %v not closer than unrelated %v", cos(a, b), cos(a, c))
	}
}
