package agent

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// TestMalformedCallFeedbackInDialect: a GLM model that writes a malformed
// call is told what was wrong and shown the call in GLM's layout (the tool
// it meant, with a placeholder for its required parameter), not olly's
// <tool_call> JSON; a model without a dialect gets the parser's message as
// it always did.
func TestMalformedCallFeedbackInDialect(t *testing.T) {
	for _, tc := range []struct {
		name, template, call string
		want                 []string
		not                  string
	}{
		{"glm", glmTemplate, "<tool_call>read_file\n<arg_key>path</arg_key>\nmain.go\n</tool_call>",
			[]string{"Your read_file call was not run: expected <arg_value> after </arg_key>. Write it again in this form:\n" +
				"<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>…</arg_value>\n</tool_call>\n" +
				"Write each value as it is, without quotes or escapes; a list or an object as JSON."}, `{"name"`},
		{"no dialect", "{{ .Prompt }}", `<tool_call>{"name": "read_file", "arguments": {"path": main.go}}</tool_call>`,
			[]string{`the tool call is not valid JSON (unexpected "main.go" is not a JSON value); write the JSON object again, with quotes and backslashes inside strings escaped`},
			"Write it again in this form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, false, harnessOpt{model: []llmtest.ModelOption{llmtest.Template(tc.template)}})
			h.srv.Enqueue(
				llmtest.Reply(llmtest.Text("Reading it.\n"+tc.call)),
				llmtest.Reply(llmtest.Text("I could not read it. [TASK_COMPLETE]")),
			)
			h.prompt("read main.go")
			reqs := h.chats()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			msgs := reqs[1].Messages
			last := msgs[len(msgs)-1].Content
			mustContain(t, "the result sent back", last, tc.want...)
			if strings.Contains(last, tc.not) {
				t.Errorf("the result sent back contains %q:\n%s", tc.not, last)
			}
			h.checkHistory()
			checkParity(t, h)
		})
	}
}
