package timeline

import "github.com/olly-agent/olly/internal/event"

// applyTodos shows a todo_list event: the turn's todo block is placed
// where the turn first wrote its list and updated in place by the later
// ones, so the turn shows one list, as it ended; the timeline's Todos is
// the session's current list.
func (b *Builder) applyTodos(turn int, p event.TodoList) {
	todos := append([]event.Todo{}, p.Todos...)
	b.tl.Todos = todos
	it := b.item(turn)
	for _, blk := range it.Blocks {
		if blk.Kind == BlockTodos {
			blk.Todos = todos
			return
		}
	}
	b.appendBlock(turn, &Block{Kind: BlockTodos, Todos: todos})
}
