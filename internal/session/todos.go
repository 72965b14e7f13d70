package session

import (
	"context"

	"github.com/olly-agent/olly/internal/event"
)

// Todos returns the session's current todo list: the last todo_list event
// on its current branch (nil when the agent kept none). Live frontends
// show the same list from the events as they arrive.
func (s *Service) Todos(ctx context.Context, id string) ([]event.Todo, error) {
	evs, err := s.History(ctx, id)
	if err != nil {
		return nil, err
	}
	return LastTodos(evs), nil
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
