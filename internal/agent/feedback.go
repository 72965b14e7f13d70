package agent

import "github.com/olly-agent/olly/internal/toolcall"

// explain is what the model is told about a call it wrote in its text that
// cannot run as written (toolcall.Feedback): with a dialect, what was wrong
// and the call written correctly in that dialect — the tool it meant, with
// placeholders for its required parameters, or the prompt's example when
// that tool is not offered. Without a dialect (olly's <tool_call> JSON):
// the Problem as the parser wrote it.
func (r *run) explain(c toolcall.Call) string {
	d := r.req.textDialect()
	if d == "" {
		return c.Problem
	}
	name, args := r.exampleCall()
	for _, s := range r.req.specs {
		if s.Name == c.Name {
			name, args = s.Name, string(toolcall.ExampleArgs(s.Parameters))
			break
		}
	}
	if name == "" {
		return c.Problem
	}
	return toolcall.Feedback(d, c, name, []byte(args))
}
