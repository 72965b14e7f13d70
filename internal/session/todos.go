package session

import (
	"context"

	"github.com/olly-agent/olly/internal/event"
)

// Todos returns the session's current todo list: the last todo_list event
// on its current branch (nil when the agent kept none), read alone rather
// than with the whole branch. Live frontends show the same list from the
// events as they arrive.
func (s *Service) Todos(ctx context.Context, id string) ([]event.Todo, error) {
	rec, err := s.store.LastOfType(ctx, id, string(event.TypeTodoList))
	if err != nil || rec == nil {
		return nil, err
	}
	ev, err := decode(*rec)
	if err != nil {
		return nil, err
	}
	l, _ := ev.Data.(event.TodoList)
	return l.Todos, nil
}

// LastTodos is the todo list of the last todo_list event among evs (nil
// when there is none).
func LastTodos(evs []event.Event) []event.Todo {
	for i := len(evs) - 1; i >= 0; i-- {
		if l, ok := evs[i].Data.(event.TodoList); ok {
			return l.Todos
		}
	}
	return nil
}
