package agent

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/timeline"
	"github.com/olly-agent/olly/internal/tools"
)

func todoHarness(t *testing.T, native bool) *harness {
	return newHarness(t, native, harnessOpt{
		tools: []tools.Tool{tools.TodoWrite{}, tools.TodoRead{}},
		toolEnv: func(h *harness) func(context.Context, *session.Turn) (tools.Env, error) {
			return func(context.Context, *session.Turn) (tools.Env, error) { return tools.Env{Todos: h.svc}, nil }
		},
		cfg: Config{Tools: []string{"write_file"}},
	})
}

// The agent keeps its todo list as events: the list the live stream shows
// is the one history replays, todo_read reads it back in a later turn, and
// the session's current list is the last one written.
func TestTodoListLiveEqualsStored(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := todoHarness(t, native)
		first := `{"todos": [{"id":"1","content":"Write a.txt","status":"in_progress"},{"id":"2","content":"Write b.txt","status":"pending"}]}`
		second := `{"todos": [{"id":"1","content":"Write a.txt","status":"completed"},{"id":"2","content":"Write b.txt","status":"in_progress"}]}`
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("Planning."), h.call("todo_write", first)),
			llmtest.Reply(h.call("write_file", `{"path": "a.txt", "content": "a\n"}`)),
			llmtest.Reply(h.call("todo_write", second)),
			llmtest.Reply(llmtest.Text("a.txt written; b.txt next. [TASK_COMPLETE]")),
			llmtest.Reply(h.call("todo_read", `{}`)),
			llmtest.Reply(llmtest.Text("Continuing with b.txt. [TASK_COMPLETE]")),
		)
		h.prompt("write a.txt and then b.txt")
		h.prompt("go on")
		checkParity(t, h)

		want := []event.Todo{{ID: "1", Content: "Write a.txt", Status: "completed"}, {ID: "2", Content: "Write b.txt", Status: "in_progress"}}
		stored := timeline.Build(h.stored())
		if d := cmp.Diff(want, stored.Todos); d != "" {
			t.Errorf("stored timeline's todo list (-want +got):\n%s", d)
		}
		if d := cmp.Diff(stored.Todos, timeline.Build(h.live).Todos); d != "" {
			t.Errorf("live list differs from the stored one:\n%s", d)
		}
		got, err := h.svc.Todos(context.Background(), h.sess.ID)
		if err != nil || !cmp.Equal(want, got) {
			t.Errorf("session todos = %v, %v", got, err)
		}
		// The first turn shows one todo block, updated in place.
		blocks := 0
		for _, b := range stored.Items[1].Blocks {
			if b.Kind == timeline.BlockTodos {
				blocks++
				if !cmp.Equal(b.Todos, want) {
					t.Errorf("turn block shows %v", b.Todos)
				}
			}
		}
		if blocks != 1 {
			t.Errorf("%d todo blocks in the turn, want 1", blocks)
		}
		// todo_read in the second turn returned the list to the model.
		chats := h.chats()
		last := chats[len(chats)-1]
		found := false
		for _, m := range last.Messages {
			found = found || strings.Contains(m.Content, "[x] 1. Write a.txt\n[~] 2. Write b.txt")
		}
		if !found {
			t.Errorf("todo_read's result did not reach the model: %+v", last.Messages[len(last.Messages)-2:])
		}
	})
}

// Only the person's own turns keep a list: the todo tools are offered to
// the orchestrator and to read-only modes, never to sub-agents or chat.
func TestTodoToolsOffered(t *testing.T) {
	a, err := New(Deps{Provider: &memProvider{}, Tools: allToolsWith(t, tools.TodoWrite{}, tools.TodoRead{}), Config: Config{Model: "m", Tools: orchestratorTools()}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		mode  event.Mode
		depth int
		want  bool
	}{{event.ModeAgent, 0, true}, {event.ModePlan, 0, true}, {event.ModeChat, 0, false}, {event.ModeExplore, 1, false}} {
		r := detachedRunIn(t, a, dir, tc.mode, "task")
		if tc.depth > 0 {
			r.depth = tc.depth
			r.offer(r.withTodos(r.mode.toolNames(r.cfg, r.depth)))
		}
		if got := r.offered[tools.TodoWriteTool] && r.offered[tools.TodoReadTool]; got != tc.want {
			t.Errorf("%s at depth %d: todo tools offered %v, want %v (offered %v)", tc.mode, tc.depth, got, tc.want, slices.Sorted(maps.Keys(r.offered)))
		}
	}
}

// allToolsWith is allTools and more.
func allToolsWith(t testing.TB, more ...tools.Tool) *tools.Registry {
	t.Helper()
	reg, err := tools.NewRegistry(append(append(append(tools.Core(), tools.LSP(nil, nil)...), tools.Subagent{}), more...)...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
