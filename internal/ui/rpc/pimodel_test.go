package rpc

import (
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

// TestPiModelDialect: get_available_models (and get_state's model) report
// the tool-call dialect read from the model's template, and none for a
// template without tool markup.
func TestPiModelDialect(t *testing.T) {
	s := &Server{}
	for tmpl, want := range map[string]string{
		"{{ range .ToolCalls }}<tool_call>{{ .Function.Name }}\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>{{ end }}": "glm",
		"{{ range .ToolCalls }}[TOOL_CALLS]{{ .Function.Name }}[ARGS]{{ .Function.Arguments }}{{ end }}":                 "bracket_args",
		"{{ .Prompt }}": "",
	} {
		m := s.piModel(llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: "m"}, Template: tmpl}, false)
		if m.Dialect != want {
			t.Errorf("template %q: dialect %q, want %q", tmpl, m.Dialect, want)
		}
	}
}
