package tui

import (
	"github.com/olly-agent/olly/internal/event"
)

// todos renders a turn's todo list (timeline.BlockTodos): one line per
// item, the one in progress highlighted, the done ones muted.
func (r *renderer) todos(list []event.Todo) []string {
	out := []string{"  " + r.st.info.Bold(true).Render("Todo list")}
	if len(list) == 0 {
		return append(out, "    "+r.st.muted.Render("(empty)"))
	}
	for _, t := range list {
		text := oneLine(t.Content)
		switch t.Status {
		case event.TodoCompleted:
			out = append(out, r.clipLine("    "+r.st.muted.Render("☑ "+text)))
		case event.TodoInProgress:
			out = append(out, r.clipLine("    "+r.st.accent.Render("◐ "+text)))
		default:
			out = append(out, r.clipLine("    ☐ "+text))
		}
	}
	return out
}
