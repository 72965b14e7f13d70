package llmtest_test

import (
	"encoding/json"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestCapabilityChecks(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("plain:1b", llmtest.Caps("completion"))
	srv.AddModel("embed:1b", llmtest.Caps("embedding"))
	srv.AddModel("vision:1b", llmtest.Caps("completion", "vision"))
	cases := []struct{ path, body, want string }{
		// A vision model refuses bytes that are no image, in both dialects.
		{"/api/chat", `{"model":"vision:1b","messages":[{"role":"user","content":"a","images":["aW1n"]}]}`, `invalid image input: 3 bytes of text/plain; charset=utf-8`},
		{"/v1/chat/completions", `{"model":"vision:1b","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,aW1n"}}]}]}`, `invalid image input: 3 bytes of text/plain; charset=utf-8`},
		{"/api/chat", `{"model":"plain:1b","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"f"}}]}`, `registry.ollama.ai/library/plain:1b does not support tools`},
		{"/api/chat", `{"model":"plain:1b","messages":[{"role":"user","content":"a"}],"think":true}`, `"plain:1b" does not support thinking`},
		{"/api/generate", `{"model":"plain:1b","prompt":"a","suffix":"b"}`, `registry.ollama.ai/library/plain:1b does not support insert`},
		{"/api/chat", `{"model":"plain:1b","messages":[{"role":"user","content":"a","images":["aW1n"]}]}`, `registry.ollama.ai/library/plain:1b does not support vision`},
		{"/api/chat", `{"model":"embed:1b","messages":[{"role":"user","content":"a"}]}`, `"embed:1b" does not support chat`},
		{"/v1/chat/completions", `{"model":"plain:1b","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"f"}}]}`, `registry.ollama.ai/library/plain:1b does not support tools`},
	}
	for _, tc := range cases {
		resp, body := do(t, srv, "POST", tc.path, tc.body)
		var e struct{ Error json.RawMessage }
		_ = json.Unmarshal(body, &e)
		var msg string
		if json.Unmarshal(e.Error, &msg) != nil {
			var o struct{ Message string }
			_ = json.Unmarshal(e.Error, &o)
			msg = o.Message
		}
		if resp.StatusCode != 400 || msg != tc.want {
			t.Errorf("%s: %d %s, want %q", tc.body, resp.StatusCode, body, tc.want)
		}
	}
}

// TestShowShape: /api/show answers with the members Ollama's ShowResponse
// has, the template included (Ollama's "{{ .Prompt }}" for a model that
// sets none).
func TestShowShape(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("plain:1b", llmtest.Caps("completion"))
	srv.AddModel("glm:9b", llmtest.Caps("completion"), llmtest.Template("{{ range .ToolCalls }}<tool_call>{{ .Function.Name }}{{ end }}"))
	for name, want := range map[string]string{"plain:1b": "{{ .Prompt }}", "glm:9b": "{{ range .ToolCalls }}<tool_call>{{ .Function.Name }}{{ end }}"} {
		resp, body := do(t, srv, "POST", "/api/show", `{"model":"`+name+`"}`)
		var got map[string]json.RawMessage
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, body)
		}
		for _, k := range []string{"license", "modelfile", "template", "details", "model_info", "tensors", "capabilities", "modified_at"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: no %q in %s", name, k, body)
			}
		}
		var tmpl string
		if json.Unmarshal(got["template"], &tmpl); tmpl != want {
			t.Errorf("%s: template %q, want %q", name, tmpl, want)
		}
		if _, ok := got["parameters"]; ok {
			t.Errorf("%s: empty parameters are sent; Ollama leaves them out", name)
		}
	}
}
