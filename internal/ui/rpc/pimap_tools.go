package rpc

import (
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/rpcproto"
)

// Tool calls in the pi mapping: olly shows a call as tool_action events in
// the batch's progress group and records its result as tool_result; pi
// follows a call by its id from tool_execution_start to
// tool_execution_end.

// action starts the tool call an action of the batch's group belongs to:
// calls run in order, each showing its action before its result.
func (m *piMapper) action(out *emitter, p event.ToolAction) {
	r := m.run
	if r.group == "" || p.GroupID != r.group {
		return // a sub-agent's actions, or actions outside a batch
	}
	base, _, _ := strings.Cut(p.ActionID, ":")
	if _, ok := r.actions[base]; ok {
		return
	}
	for _, c := range r.calls {
		if !r.started[c.ID] && !r.ended[c.ID] {
			r.actions[base] = c.ID
			m.startCall(out, c)
			return
		}
	}
}

func (m *piMapper) startCall(out *emitter, c llm.ToolCall) {
	m.run.started[c.ID] = true
	out.add(rpcproto.PiToolExecutionStartEvent{Type: rpcproto.PiToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: args(c.Arguments)})
}

func (m *piMapper) toolOutput(out *emitter, p event.ToolOutput) {
	r := m.run
	base, _, _ := strings.Cut(p.ActionID, ":")
	id, ok := r.actions[base]
	if !ok || r.ended[id] {
		return
	}
	so := r.output[id] + p.Text
	if len(so) > piOutputCap {
		so = so[len(so)-piOutputCap:]
	}
	r.output[id] = so
	c := m.call(id, "")
	out.add(rpcproto.PiToolExecutionUpdateEvent{Type: rpcproto.PiToolExecutionUpdate, ToolCallID: id, ToolName: c.Name, Args: args(c.Arguments),
		PartialResult: &rpcproto.PiToolResult{Content: []rpcproto.PiContent{{Type: "text", Text: so}}, Details: map[string]any{}}})
}

// call finds a call of the iteration by id, or the first one of that
// name not ended yet.
func (m *piMapper) call(id, name string) llm.ToolCall {
	r := m.run
	for _, c := range r.calls {
		if id != "" && c.ID == id {
			return c
		}
	}
	for _, c := range r.calls {
		if id == "" && c.Name == name && !r.ended[c.ID] {
			return c
		}
	}
	return llm.ToolCall{ID: id, Name: name}
}

func (m *piMapper) result(out *emitter, p event.ToolResult, ts int64) {
	r := m.run
	c := m.call(p.ToolCallID, p.ToolName)
	isErr := p.IsError
	content := []rpcproto.PiContent{{Type: "text", Text: p.Content}}
	if c.ID != "" {
		if !r.started[c.ID] {
			m.startCall(out, c)
		}
		r.ended[c.ID] = true
		out.add(rpcproto.PiToolExecutionEndEvent{Type: rpcproto.PiToolExecutionEnd, ToolCallID: c.ID, ToolName: c.Name,
			Result: &rpcproto.PiToolResult{Content: content, Details: map[string]any{}}, IsError: isErr})
	}
	msg := rpcproto.PiMessage{Role: rpcproto.PiRoleToolResult, Content: content, ToolCallID: c.ID, ToolName: p.ToolName, IsError: &isErr, Timestamp: ts}
	r.results = append(r.results, msg)
	m.message(out, msg)
}
