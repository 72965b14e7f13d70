package tui

import (
	"context"
	"testing"

	"github.com/olly-agent/olly/internal/session"
)

// The / completion lists the session's commands, custom ones included,
// and the TUI's own keep their names.
func TestCommandCompletionCustom(t *testing.T) {
	m := New(context.Background(), Options{Info: SessionInfo{ID: "s1"}, Deps: Deps{
		Commands: func(_ context.Context, id string) ([]session.Command, error) {
			if id != "s1" {
				t.Errorf("asked for session %q", id)
			}
			return []session.Command{
				{Name: "plan", About: "built-in plan", Source: session.SourceBuiltin},
				{Name: "fix", About: "Fix an issue", Source: "project"},
				{Name: "model", About: "a custom /model", Source: "user"},
			}, nil
		}}})
	c := m.commandCompletion()
	if c.descs["fix"] != "Fix an issue (project)" || c.descs["plan"] != "built-in plan" {
		t.Errorf("descriptions %v", c.descs)
	}
	if c.descs["model"] == "a custom /model (user)" {
		t.Error("a custom command replaced the TUI's /model")
	}
	n := 0
	for _, name := range c.all {
		if name == "model" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("/model listed %d times", n)
	}
}
