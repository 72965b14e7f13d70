package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

func TestRenderTodos(t *testing.T) {
	m := New(context.Background(), Options{})
	blk := &timeline.Block{Kind: timeline.BlockTodos, Todos: []event.Todo{
		{ID: "1", Content: "Add the flag", Status: event.TodoCompleted},
		{ID: "2", Content: "Update the docs", Status: event.TodoInProgress},
		{ID: "3", Content: "Run the tests", Status: event.TodoPending}}}
	got := ansi.Strip(strings.Join(m.rnd.block(blk, false), "\n"))
	want := "  Todo list\n    ☑ Add the flag\n    ◐ Update the docs\n    ☐ Run the tests"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
