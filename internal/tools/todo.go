package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// The todo list (todo_write, todo_read): the agent's plan for multi-step
// work, kept as events. todo_write sends the whole list each time and
// emits it as a todo_list event, so the list a frontend shows — live or
// from history — is the last such event of the branch; todo_read reads it
// back through Env.Todos.

// Names of the todo tools.
const (
	TodoWriteTool = "todo_write"
	TodoReadTool  = "todo_read"
)

// Todo list limits: the list is for the model's own planning, not a store.
const (
	maxTodos       = 50
	maxTodoContent = 500
)

// TodoSource returns a session's current todo list (the last todo_list
// event of its branch): the session service.
type TodoSource interface {
	Todos(ctx context.Context, session string) ([]event.Todo, error)
}

// TodoWrite is the todo_write tool.
type TodoWrite struct{}

// TodoRead is the todo_read tool.
type TodoRead struct{}

// Spec implements Tool.
func (TodoWrite) Spec() llm.Tool {
	params := json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","description":"The whole list, in order; it replaces the previous one.","items":{"type":"object","properties":{"id":{"type":"string","description":"Short unique id (\"1\", \"2\"…); keep an item's id when you update it."},"content":{"type":"string","description":"What to do, as one short imperative sentence."},"status":{"type":"string","enum":["pending","in_progress","completed"],"description":"pending, in_progress (at most one item at a time) or completed."}},"required":["id","content","status"]}}},"required":["todos"]}`)
	return llm.Tool{Name: TodoWriteTool, Description: describe(TodoWriteTool, struct{ Max int }{maxTodos}), Parameters: params}
}

// Spec implements Tool.
func (TodoRead) Spec() llm.Tool {
	return spec(TodoReadTool, nil)
}

// Run implements Tool: it checks the list, records it as a todo_list event
// and returns it.
func (TodoWrite) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	list, ok := todoArg(args)
	if !ok {
		return errResult("todo_write: give todos, the whole list as an array: [{\"id\": \"1\", \"content\": \"…\", \"status\": \"pending\"}, …]."), nil
	}
	todos, problem := checkTodos(list)
	if problem != "" {
		return errResult("todo_write: %s. Nothing was recorded; send the corrected whole list.", problem), nil
	}
	if env.Emit == nil {
		return errResult("todo_write is unavailable here: there is no session to record the list in."), nil
	}
	if err := env.Emit(ctx, event.TodoList{Todos: todos}); err != nil {
		return nil, fmt.Errorf("record the todo list: %w", err)
	}
	return &Result{Content: "Todo list updated:\n" + RenderTodos(todos), Display: todoDisplay(todos)}, nil
}

// Run implements Tool.
func (TodoRead) Run(ctx context.Context, env *Env, _ Args) (*Result, error) {
	if env.Todos == nil {
		return errResult("todo_read is unavailable here: this session keeps no todo list."), nil
	}
	todos, err := env.Todos.Todos(ctx, env.Session)
	if err != nil {
		return nil, fmt.Errorf("read the todo list: %w", err)
	}
	look := event.ToolAction{Text: "Read the todo list"}
	if len(todos) == 0 {
		return &Result{Content: "The todo list is empty. Use todo_write to plan multi-step work.", Display: look}, nil
	}
	return &Result{Content: RenderTodos(todos), Display: look}, nil
}

// todoArg reads the todos argument: an array, or an array written as a
// JSON string (models quote arrays too).
func todoArg(args Args) ([]event.Todo, bool) {
	raw, ok := args.fields["todos"]
	if !ok {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var list []event.Todo
	if json.Unmarshal(raw, &list) != nil || list == nil && strings.TrimSpace(string(raw)) != "[]" {
		return nil, false
	}
	return list, true
}

// checkTodos validates a list the model sent: ids given and unique,
// content given, statuses known, at most one in progress, size bounded.
// Spaces around fields are trimmed.
func checkTodos(in []event.Todo) ([]event.Todo, string) {
	if len(in) > maxTodos {
		return nil, fmt.Sprintf("%d items; at most %d (merge small steps)", len(in), maxTodos)
	}
	out := make([]event.Todo, 0, len(in))
	seen := map[string]bool{}
	active := 0
	for i, t := range in {
		t.ID, t.Content, t.Status = strings.TrimSpace(t.ID), strings.TrimSpace(t.Content), strings.TrimSpace(t.Status)
		switch {
		case t.ID == "":
			return nil, fmt.Sprintf("item %d has no id", i+1)
		case seen[t.ID]:
			return nil, fmt.Sprintf("id %q is used twice", t.ID)
		case t.Content == "":
			return nil, fmt.Sprintf("item %q has no content", t.ID)
		case len(t.Content) > maxTodoContent:
			return nil, fmt.Sprintf("item %q is %d bytes; keep each under %d", t.ID, len(t.Content), maxTodoContent)
		}
		switch t.Status {
		case event.TodoPending, event.TodoCompleted:
		case event.TodoInProgress:
			active++
		default:
			return nil, fmt.Sprintf("item %q has status %q; use pending, in_progress or completed", t.ID, t.Status)
		}
		seen[t.ID] = true
		out = append(out, t)
	}
	if active > 1 {
		return nil, fmt.Sprintf("%d items are in_progress; work on one at a time", active)
	}
	return out, ""
}

// RenderTodos writes a list as the model and plain-text frontends see it:
// one line per item with a check box.
func RenderTodos(todos []event.Todo) string {
	var b strings.Builder
	for _, t := range todos {
		fmt.Fprintf(&b, "%s %s. %s\n", todoBox(t.Status), t.ID, t.Content)
	}
	return strings.TrimRight(b.String(), "\n")
}

func todoBox(status string) string {
	switch status {
	case event.TodoCompleted:
		return "[x]"
	case event.TodoInProgress:
		return "[~]"
	}
	return "[ ]"
}

// todoDisplay is the action line of a todo_write: the counts and the item
// in progress.
func todoDisplay(todos []event.Todo) event.ToolAction {
	done, current := 0, ""
	for _, t := range todos {
		switch t.Status {
		case event.TodoCompleted:
			done++
		case event.TodoInProgress:
			current = t.Content
		}
	}
	a := event.ToolAction{Text: fmt.Sprintf("Todo list: %d/%d done", done, len(todos))}
	if current != "" {
		a.Detail = "now: " + current
	}
	return a
}
