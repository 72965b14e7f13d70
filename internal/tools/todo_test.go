package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
)

type todoStore struct{ last []event.Todo }

func (s *todoStore) Todos(context.Context, string) ([]event.Todo, error) { return s.last, nil }

func (s *todoStore) env() *Env {
	return &Env{Session: "s", Todos: s, Emit: func(_ context.Context, p event.Payload) error {
		if l, ok := p.(event.TodoList); ok {
			s.last = l.Todos
		}
		return nil
	}}
}

func TestTodoWriteRead(t *testing.T) {
	st := &todoStore{}
	env := st.env()
	args, _ := ParseArgs(json.RawMessage(`{"todos": [{"id":"1","content":" Add the flag ","status":"completed"},{"id":"2","content":"Update docs","status":"in_progress"},{"id":"3","content":"Run tests","status":"pending"}]}`))
	res, err := TodoWrite{}.Run(context.Background(), env, args)
	if err != nil || res.IsError {
		t.Fatalf("todo_write: %v %+v", err, res)
	}
	want := []event.Todo{{ID: "1", Content: "Add the flag", Status: "completed"}, {ID: "2", Content: "Update docs", Status: "in_progress"}, {ID: "3", Content: "Run tests", Status: "pending"}}
	if d := cmp.Diff(want, st.last); d != "" {
		t.Errorf("recorded list (-want +got):\n%s", d)
	}
	if res.Display.Text != "Todo list: 1/3 done" || res.Display.Detail != "now: Update docs" {
		t.Errorf("display %+v", res.Display)
	}
	read, err := TodoRead{}.Run(context.Background(), env, Args{})
	if err != nil || read.Content != "[x] 1. Add the flag\n[~] 2. Update docs\n[ ] 3. Run tests" {
		t.Errorf("todo_read: %v %q", err, read.Content)
	}
	// A list written as a JSON string is accepted too; an empty list clears.
	args, _ = ParseArgs(json.RawMessage(`{"todos": "[]"}`))
	if res, _ := (TodoWrite{}).Run(context.Background(), env, args); res.IsError || len(st.last) != 0 {
		t.Errorf("clearing: %+v, list %v", res, st.last)
	}
}

func TestTodoWriteRefuses(t *testing.T) {
	cases := map[string]string{
		"no list":          `{}`,
		"not an array":     `{"todos": 3}`,
		"no id":            `{"todos": [{"content":"x","status":"pending"}]}`,
		"duplicate id":     `{"todos": [{"id":"1","content":"x","status":"pending"},{"id":"1","content":"y","status":"pending"}]}`,
		"no content":       `{"todos": [{"id":"1","content":" ","status":"pending"}]}`,
		"unknown status":   `{"todos": [{"id":"1","content":"x","status":"done"}]}`,
		"two in progress":  `{"todos": [{"id":"1","content":"x","status":"in_progress"},{"id":"2","content":"y","status":"in_progress"}]}`,
		"content too long": `{"todos": [{"id":"1","content":"` + strings.Repeat("x", 600) + `","status":"pending"}]}`,
	}
	for name, raw := range cases {
		st := &todoStore{last: []event.Todo{{ID: "keep", Content: "old", Status: "pending"}}}
		args, _ := ParseArgs(json.RawMessage(raw))
		res, err := TodoWrite{}.Run(context.Background(), st.env(), args)
		if err != nil || !res.IsError || len(st.last) != 1 || st.last[0].ID != "keep" {
			t.Errorf("%s: err %v, result %+v, list %v", name, err, res, st.last)
		}
	}
}
