package agent

import (
	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/tools"
)

// withTodos adds the todo tools (todo_write, todo_read) to a run's tool
// names: the person's own turns keep the list, in every mode but chat;
// sub-agents never do — the list belongs to the turn the person watches,
// and a sub-agent's list would replace it (the seed removes todo_write
// from sub-agents). Nil names already offer every tool.
func (rt *routing) withTodos(names []string) []string {
	if names == nil || rt.depth > 0 || rt.mode.name == event.ModeChat {
		return names
	}
	return append(names[:len(names):len(names)], tools.TodoWriteTool, tools.TodoReadTool)
}
