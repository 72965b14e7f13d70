package agent

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/tools"
)

// TestPrestartShellOnlyWhereCommandsAreLikely: a person's turn in agent
// mode (which offers the terminal tool to commands that change things)
// starts the session's shell ahead of the first command; the modes
// without the tool, or whose commands are read-only (review), do not.
func TestPrestartShellOnlyWhereCommandsAreLikely(t *testing.T) {
	var calls atomic.Int32
	env := func(context.Context, *session.Turn) (tools.Env, error) {
		return tools.Env{PrestartShell: func() { calls.Add(1) }}, nil
	}
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t), Config: Config{Model: "m", Tools: orchestratorTools()}, ToolEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[event.Mode]int32{
		event.ModeAgent: 1, event.ModeChat: 0, event.ModePlan: 0, event.ModeExplore: 0,
		event.ModeReview: 0, event.ModeDeepExplore: 0, event.ModeDeepExploreWrite: 0,
	} {
		calls.Store(0)
		detachedRun(t, a, mode, "add a test for Parse")
		if got := calls.Load(); got != want {
			t.Errorf("mode %s: %d prestarts, want %d", mode, got, want)
		}
	}
}
