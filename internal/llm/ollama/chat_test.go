package ollama_test

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestChatStreamsEveryKindOfChunk(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(
		llmtest.Thinking("plan: "), llmtest.Thinking("write it"),
		llmtest.Text("Hello "), llmtest.Text("wörld \"quoted\" <tag> \n"),
		llmtest.ToolCall("write_file", `{"path":"a.go","content":"package a\n"}`),
		llmtest.ToolCallID("my-id", "read_file", `{"path":"b.go"}`),
		llmtest.Usage(120, 35),
		llmtest.Timings(10*time.Millisecond, 20*time.Millisecond, 30*time.Millisecond),
		llmtest.DoneReason("length"),
	))
	c, _ := newClient(t, srv)
	s, err := c.Chat(context.Background(), wiretest.ChatReq(model))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := wiretest.Drain(t, s)
	if err != nil {
		t.Fatal(err)
	}
	var content, thinking string
	var calls []llm.ToolCall
	for _, ch := range chunks[:len(chunks)-1] {
		if ch.Done {
			t.Fatalf("Done before the last chunk: %+v", ch)
		}
		content += ch.Content
		thinking += ch.Thinking
		calls = append(calls, ch.ToolCalls...)
	}
	if content != "Hello wörld \"quoted\" <tag> \n" || thinking != "plan: write it" {
		t.Errorf("content %q, thinking %q", content, thinking)
	}
	wantCalls := []llm.ToolCall{
		{ID: "call_1", Index: 0, Name: "write_file", Arguments: json.RawMessage(`{"path":"a.go","content":"package a\n"}`)},
		{ID: "my-id", Index: 1, Name: "read_file", Arguments: json.RawMessage(`{"path":"b.go"}`)},
	}
	if d := cmp.Diff(wantCalls, calls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	last := chunks[len(chunks)-1]
	wantLast := llm.ChatChunk{Done: true, DoneReason: "length", Metrics: &llm.Metrics{
		PromptTokens: 120, CompletionTokens: 35, TotalDuration: 60 * time.Millisecond,
		LoadDuration: 10 * time.Millisecond, PromptEvalDuration: 20 * time.Millisecond, EvalDuration: 30 * time.Millisecond,
	}}
	if d := cmp.Diff(wantLast, last); d != "" {
		t.Errorf("final chunk (-want +got):\n%s", d)
	}
	// After the end, Recv keeps reporting io.EOF.
	if _, err := s.Recv(); err == nil {
		t.Error("Recv after the end returned no error")
	}
}

func TestChatSendsTheWholeRequest(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("ok")))
	c, _ := newClient(t, srv)
	png := []byte("\x89PNG\r\n\x1a\nfake")
	req := &llm.ChatRequest{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "look", Images: [][]byte{png}},
			{Role: llm.RoleAssistant, Content: "", Thinking: "hmm", ToolCalls: []llm.ToolCall{
				{ID: "call_9", Index: 1, Name: "read_file", Arguments: json.RawMessage(`{"path":"x"}`)},
			}},
			{Role: llm.RoleTool, Content: "file body", ToolName: "read_file", ToolCallID: "call_9"},
		},
		Tools: []llm.Tool{
			{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "no_params", Description: "No parameters"},
		},
		Think:   &llm.Think{Enabled: true},
		Format:  json.RawMessage(`{"type":"object"}`),
		Options: allOptions(),
	}
	wiretest.Chat(t, c, req)
	got := srv.LastRequest("/api/chat")
	if d := cmp.Diff(req.Messages, got.Messages); d != "" {
		t.Errorf("messages as the server decoded them (-sent +got):\n%s", d)
	}
	wantTools := []llm.Tool{req.Tools[0], {Name: "no_params", Description: "No parameters", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	if d := cmp.Diff(wantTools, got.Tools); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if d := cmp.Diff(req.Options, got.Options); d != "" {
		t.Errorf("options (-sent +got):\n%s", d)
	}
	for field, want := range map[string]string{
		"stream": `true`, "think": `true`, "format": `{"type":"object"}`, "model": `"qwen3:8b"`,
	} {
		if string(got.Fields[field]) != want {
			t.Errorf("%s = %s, want %s", field, got.Fields[field], want)
		}
	}
	if _, ok := got.Fields["keep_alive"]; ok {
		t.Error("keep_alive sent although empty")
	}
	var msgs []map[string]json.RawMessage
	_ = json.Unmarshal(got.Fields["messages"], &msgs)
	if string(msgs[1]["images"]) != `["iVBORw0KGgpmYWtl"]` {
		t.Errorf("images = %s, want base64 strings", msgs[1]["images"])
	}
	if string(msgs[2]["tool_calls"]) != `[{"id":"call_9","function":{"index":1,"name":"read_file","arguments":{"path":"x"}}}]` {
		t.Errorf("tool_calls = %s", msgs[2]["tool_calls"])
	}
	if got.Header.Get("Accept") != "application/x-ndjson" || got.Header.Get("Content-Type") != "application/json" || got.Header.Get("User-Agent") != "olly" {
		t.Errorf("headers: %v", got.Header)
	}
}

// allOptions sets every option, each to a distinct value.
func allOptions() llm.Options {
	return llm.Options{
		NumCtx: llm.Ptr(8192), Seed: llm.Ptr(42), Temperature: llm.Ptr(0.2), NumPredict: llm.Ptr(512),
		Stop: []string{"[TASK_COMPLETE]"}, RepeatPenalty: llm.Ptr(1.1), RepeatLastN: llm.Ptr(64),
		TopK: llm.Ptr(40), TopP: llm.Ptr(0.9), MinP: llm.Ptr(0.05), TypicalP: llm.Ptr(0.7), TFSZ: llm.Ptr(1.5),
		PresencePenalty: llm.Ptr(0.3), FrequencyPenalty: llm.Ptr(0.4), Mirostat: llm.Ptr(2),
		MirostatTau: llm.Ptr(5.0), MirostatEta: llm.Ptr(0.1), NumKeep: llm.Ptr(4), NumBatch: llm.Ptr(256),
		NumGPU: llm.Ptr(99), MainGPU: llm.Ptr(1), NumThread: llm.Ptr(8),
	}
}

func TestChatSendsEveryOptionUnderOllamasName(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("ok")))
	c, _ := newClient(t, srv)
	s, err := c.Chat(context.Background(), &llm.ChatRequest{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Options: allOptions()})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = wiretest.Drain(t, s)
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(srv.LastRequest("/api/chat").Fields["options"], &opts); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The seed's OllamaOptions list.
	want := []string{"frequency_penalty", "main_gpu", "min_p", "mirostat", "mirostat_eta", "mirostat_tau", "num_batch", "num_ctx", "num_gpu", "num_keep", "num_predict", "num_thread", "presence_penalty", "repeat_last_n", "repeat_penalty", "seed", "stop", "temperature", "tfs_z", "top_k", "top_p", "typical_p"}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("option names (-want +got):\n%s", d)
	}
}

func TestChatEncodesThinkKeepAliveAndFormat(t *testing.T) {
	wiretest.RequestFields(t, dialect(), []wiretest.FieldCase{
		{Name: "defaults send nothing", Want: map[string]string{"think": "", "keep_alive": "", "format": "", "options": ""}},
		{Name: "think on", Think: &llm.Think{Enabled: true}, Want: map[string]string{"think": "true"}},
		{Name: "think off", Think: &llm.Think{}, Want: map[string]string{"think": "false"}},
		{Name: "think level", Think: &llm.Think{Enabled: true, Level: "high"}, Want: map[string]string{"think": `"high"`}},
		{Name: "keep alive forever is a number", KeepAlive: "-1", Want: map[string]string{"keep_alive": "-1"}},
		{Name: "keep alive seconds is a number", KeepAlive: "300", Want: map[string]string{"keep_alive": "300"}},
		{Name: "keep alive zero unloads", KeepAlive: "0", Want: map[string]string{"keep_alive": "0"}},
		{Name: "keep alive fraction", KeepAlive: " 1.5 ", Want: map[string]string{"keep_alive": "1.5"}},
		{Name: "keep alive duration is a string", KeepAlive: "30m", Want: map[string]string{"keep_alive": `"30m"`}},
		{Name: "format json", Format: `"json"`, Want: map[string]string{"format": `"json"`}},
		{Name: "format bare word is quoted", Format: `json`, Want: map[string]string{"format": `"json"`}},
		{Name: "format schema", Format: `{"type":"object","properties":{"a":{"type":"string"}}}`, Want: map[string]string{"format": `{"type":"object","properties":{"a":{"type":"string"}}}`}},
	})
}

func TestGenerateFillInTheMiddle(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("return "), llmtest.Text("a + b"), llmtest.Usage(30, 4)))
	c, _ := newClient(t, srv)
	req := &llm.GenerateRequest{
		// No System: Ollama refuses it with raw ("raw mode does not support
		// template, system, or context"), and so does the fake.
		Model: model, Prompt: "func add(a, b int) int {\n\t", Suffix: "\n}\n", Raw: true,
		Options: llm.Options{Temperature: llm.Ptr(0.0), NumPredict: llm.Ptr(64), Stop: []string{"\n\n"}}, KeepAlive: "-1",
	}
	chunks := wiretest.Generate(t, c, req)
	var text string
	for _, ch := range chunks {
		text += ch.Response
	}
	last := chunks[len(chunks)-1]
	if text != "return a + b" || !last.Done || last.DoneReason != "stop" || last.Metrics.PromptTokens != 30 || last.Metrics.CompletionTokens != 4 {
		t.Errorf("text %q, last chunk %+v %+v", text, last, last.Metrics)
	}
	got := srv.LastRequest("/api/generate")
	if got.Prompt != req.Prompt || got.Suffix != req.Suffix || got.System != req.System || !got.Raw || got.KeepAlive != "-1" || !got.Stream {
		t.Errorf("server saw %+v", got)
	}
	if string(got.Fields["keep_alive"]) != "-1" {
		t.Errorf("keep_alive = %s, want the number -1", got.Fields["keep_alive"])
	}
	if d := cmp.Diff(req.Options, got.Options); d != "" {
		t.Errorf("options (-sent +got):\n%s", d)
	}
}

func TestGenerateWithImagesAndThinking(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Thinking("looking"), llmtest.Text("a cat")))
	c, _ := newClient(t, srv)
	chunks := wiretest.Generate(t, c, &llm.GenerateRequest{Model: model, Prompt: "what is it?", Images: [][]byte{[]byte(pngMagic)}, Think: &llm.Think{Level: "low"}})
	if chunks[0].Thinking != "looking" || chunks[1].Response != "a cat" {
		t.Errorf("chunks %+v", chunks)
	}
	got := srv.LastRequest("/api/generate")
	if string(got.Fields["think"]) != `"low"` || len(got.Images) != 1 || string(got.Images[0]) != pngMagic {
		t.Errorf("server saw think %s images %q", got.Fields["think"], got.Images)
	}
}

// pngMagic is enough of a PNG for the fake server's image check.
const pngMagic = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
