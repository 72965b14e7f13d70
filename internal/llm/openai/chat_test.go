package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestChatAssemblesToolCallsAndReasoning(t *testing.T) {
	longArgs := `{"path":"main.go","content":"package main\n\nfunc main() {\n\tprintln(\"héllo, wörld\")\n}\n"}`
	for _, flavor := range []struct {
		name string
		opts []llmtest.Option
	}{
		{name: "ollama reasoning field"},
		{name: "vllm reasoning_content", opts: []llmtest.Option{llmtest.WithFlavor(llmtest.FlavorVLLM)}},
		{name: "CRLF framing", opts: []llmtest.Option{llmtest.WithCRLF()}},
	} {
		t.Run(flavor.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, flavor.opts...)
			srv.Enqueue(llmtest.Reply(
				llmtest.Thinking("plan: "), llmtest.Thinking("write"),
				llmtest.Text("Writing "), llmtest.Text("it."),
				llmtest.ToolCall("write_file", longArgs),
				llmtest.ToolCallID("call_x", "read_file", `{"path":"go.mod"}`),
				llmtest.Usage(120, 35),
			))
			c, _ := newClient(t, srv)
			chunks := wiretest.Chat(t, c, wiretest.ChatReq(model))
			var content, thinking string
			var calls []llm.ToolCall
			callChunks := 0
			for _, ch := range chunks {
				content += ch.Content
				thinking += ch.Thinking
				if len(ch.ToolCalls) > 0 {
					callChunks++
				}
				calls = append(calls, ch.ToolCalls...)
			}
			if content != "Writing it." || thinking != "plan: write" {
				t.Errorf("content %q thinking %q", content, thinking)
			}
			want := []llm.ToolCall{
				{ID: "call_1", Index: 0, Name: "write_file", Arguments: json.RawMessage(longArgs)},
				{ID: "call_x", Index: 1, Name: "read_file", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
			}
			if d := cmp.Diff(want, calls); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			if callChunks != 1 {
				t.Errorf("calls came in %d chunks, want all complete in one", callChunks)
			}
			last := chunks[len(chunks)-1]
			if !last.Done || last.DoneReason != "stop" || last.Metrics == nil || last.Metrics.PromptTokens != 120 || last.Metrics.CompletionTokens != 35 {
				t.Errorf("final chunk %+v %+v", last, last.Metrics)
			}
		})
	}
}

func TestChatDoneReasonsAndMalformedArguments(t *testing.T) {
	cases := []struct {
		name   string
		parts  []llmtest.Part
		reason string
		raw    string
	}{
		{name: "length stays length", parts: []llmtest.Part{llmtest.Text("cut"), llmtest.DoneReason("length")}, reason: "length"},
		{name: "stop", parts: []llmtest.Part{llmtest.Text("fine")}, reason: "stop"},
		{name: "arguments that are not an object", parts: []llmtest.Part{llmtest.ToolCall("f", `{"a":`)}, reason: "stop", raw: `{"a":`},
		{name: "arguments that are an array", parts: []llmtest.Part{llmtest.ToolCall("f", `[1,2]`)}, reason: "stop", raw: `[1,2]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := wiretest.NewServer(t)
			srv.Enqueue(llmtest.Reply(tc.parts...))
			c, _ := newClient(t, srv)
			chunks := wiretest.Chat(t, c, wiretest.ChatReq(model))
			last := chunks[len(chunks)-1]
			if last.DoneReason != tc.reason {
				t.Errorf("DoneReason %q, want %q", last.DoneReason, tc.reason)
			}
			if tc.raw != "" {
				var call llm.ToolCall
				for _, ch := range chunks {
					if len(ch.ToolCalls) > 0 {
						call = ch.ToolCalls[0]
					}
				}
				if call.Arguments != nil || call.RawArguments != tc.raw || call.Name != "f" {
					t.Errorf("call %+v, want RawArguments %q and no Arguments", call, tc.raw)
				}
			}
		})
	}
}

func TestChatSendsTheWholeRequest(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("ok")))
	c, _ := newClient(t, srv)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	req := &llm.ChatRequest{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "look", Images: [][]byte{png}},
			{Role: llm.RoleAssistant, Content: "", Thinking: "never sent back", ToolCalls: []llm.ToolCall{
				{ID: "call_9", Name: "read_file", Arguments: json.RawMessage(`{"path":"x"}`)},
				{ID: "call_10", Name: "broken", RawArguments: `{"path":`},
			}},
			{Role: llm.RoleTool, Content: "file body", ToolName: "read_file", ToolCallID: "call_9"},
		},
		Tools: []llm.Tool{{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Think: &llm.Think{Enabled: false},
		Options: llm.Options{
			Temperature: llm.Ptr(0.2), TopP: llm.Ptr(0.9), NumPredict: llm.Ptr(512), Stop: []string{"[TASK_COMPLETE]"}, Seed: llm.Ptr(7),
			PresencePenalty: llm.Ptr(0.1), FrequencyPenalty: llm.Ptr(0.2), TopK: llm.Ptr(40), MinP: llm.Ptr(0.05), RepeatPenalty: llm.Ptr(1.1),
			NumCtx: llm.Ptr(32768), Mirostat: llm.Ptr(2),
		},
		Format: json.RawMessage(`"json"`),
	}
	wiretest.Chat(t, c, req)
	got := srv.LastRequest("/v1/chat/completions")
	wantMsgs := []llm.Message{
		req.Messages[0], req.Messages[1],
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_9", Index: 0, Name: "read_file", Arguments: json.RawMessage(`{"path":"x"}`)},
			{ID: "call_10", Index: 1, Name: "broken", Arguments: json.RawMessage(`{}`)},
		}},
		req.Messages[3],
	}
	if d := cmp.Diff(wantMsgs, got.Messages); d != "" {
		t.Errorf("messages as the server decoded them (-want +got):\n%s", d)
	}
	wantOpts := req.Options
	wantOpts.NumCtx, wantOpts.Mirostat = nil, nil // not in this dialect
	if d := cmp.Diff(wantOpts, got.Options); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
	for field, want := range map[string]string{
		"stream": "true", "stream_options": `{"include_usage":true}`, "max_tokens": "512", "top_k": "40",
		"min_p": "0.05", "repeat_penalty": "1.1", "response_format": `{"type":"json_object"}`,
		"chat_template_kwargs": `{"enable_thinking":false}`,
	} {
		if string(got.Fields[field]) != want {
			t.Errorf("%s = %s, want %s", field, got.Fields[field], want)
		}
	}
	for _, absent := range []string{"num_ctx", "options", "keep_alive", "think", "reasoning_effort"} {
		if _, ok := got.Fields[absent]; ok {
			t.Errorf("%s was sent", absent)
		}
	}
	var msgs []map[string]json.RawMessage
	_ = json.Unmarshal(got.Fields["messages"], &msgs)
	if !strings.Contains(string(msgs[1]["content"]), `"url":"data:image/png;base64,`) {
		t.Errorf("image content %s", msgs[1]["content"])
	}
	if string(msgs[2]["tool_calls"]) != `[{"id":"call_9","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}},{"id":"call_10","type":"function","function":{"name":"broken","arguments":"{}"}}]` {
		t.Errorf("tool_calls %s", msgs[2]["tool_calls"])
	}
	if _, ok := msgs[2]["thinking"]; ok {
		t.Error("thinking sent back on history")
	}
	if string(msgs[3]["name"]) != `"read_file"` || string(msgs[3]["tool_call_id"]) != `"call_9"` {
		t.Errorf("tool message %v", msgs[3])
	}
	if got.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("Accept %q", got.Header.Get("Accept"))
	}
}

func TestChatMapsThinkAndFormat(t *testing.T) {
	wiretest.RequestFields(t, dialect(), []wiretest.FieldCase{
		{Name: "nothing set", Want: map[string]string{"reasoning_effort": "", "chat_template_kwargs": "", "response_format": ""}},
		{Name: "level", Think: &llm.Think{Enabled: true, Level: "high"}, Want: map[string]string{"reasoning_effort": `"high"`, "chat_template_kwargs": ""}},
		{Name: "on", Think: &llm.Think{Enabled: true}, Want: map[string]string{"chat_template_kwargs": `{"enable_thinking":true}`}},
		{Name: "schema", Format: `{"type":"object"}`, Want: map[string]string{"response_format": `{"json_schema":{"name":"response","schema":{"type":"object"}},"type":"json_schema"}`}},
	})
}

func TestGenerateUsesCompletions(t *testing.T) {
	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("return "), llmtest.Text("a + b"), llmtest.Usage(30, 4)))
	c, _ := newClient(t, srv)
	req := &llm.GenerateRequest{Model: model, Prompt: "func add(a, b int) int {\n\t", Suffix: "\n}", Raw: true, Options: llm.Options{NumPredict: llm.Ptr(-1), Temperature: llm.Ptr(0.0)}}
	chunks := wiretest.Generate(t, c, req)
	var text string
	for _, ch := range chunks {
		text += ch.Response
	}
	last := chunks[len(chunks)-1]
	if text != "return a + b" || !last.Done || last.DoneReason != "stop" || last.Metrics.PromptTokens != 30 {
		t.Errorf("text %q last %+v", text, last)
	}
	got := srv.LastRequest("/v1/completions")
	if got.Prompt != req.Prompt || got.Suffix != req.Suffix || !got.IncludeUsage {
		t.Errorf("server saw %+v", got)
	}
	if _, ok := got.Fields["max_tokens"]; ok {
		t.Error("num_predict -1 (no limit) was sent as max_tokens")
	}
	for _, bad := range []*llm.GenerateRequest{
		{Model: model, Prompt: "x", System: "sys"},
		{Model: model, Prompt: "x", Images: [][]byte{{1}}},
	} {
		if _, err := c.Generate(context.Background(), bad); llm.KindOf(err) != llm.KindUnsupported {
			t.Errorf("Generate(%+v) = %v, want unsupported", bad, err)
		}
	}
}
