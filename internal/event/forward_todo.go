package event

import "github.com/olly-agent/olly/event"

// The todo list's names (forward.go explains the aliases).
type (
	Todo     = event.Todo
	TodoList = event.TodoList
)

// The todo list's constants.
const (
	TodoCompleted  = event.TodoCompleted
	TodoInProgress = event.TodoInProgress
	TodoPending    = event.TodoPending
	TypeTodoList   = event.TypeTodoList
)
