package event

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// Todo is one item of the agent's todo list.
type Todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	// Status is pending, in_progress or completed.
	Status string `json:"status"`
}

// TodoList is the agent's whole todo list after a todo_write: each event
// replaces the one before, so the last one on a branch is the current
// list, live and in history alike.
type TodoList struct {
	Todos []Todo `json:"todos"`
}
