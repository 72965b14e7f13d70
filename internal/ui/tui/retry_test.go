package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/olly-agent/olly/internal/event"
)

func TestRetryLineShownUntilTheNextOutput(t *testing.T) {
	s := &script{}
	s.add(1, event.TurnStarted{Mode: "agent"}).add(1, event.UserMessage{Text: "hello"})
	m := newModel(90, 20, Deps{})
	m.Update(history(s))
	m.Update(eventMsg{event.Event{Session: "S1", Turn: 1, Data: event.ModelRetry{Iteration: 1, Phase: event.RetryStart,
		Attempt: 1, MaxAttempts: 3, DelayMs: 2000, Error: "connection refused"}}})
	const line = "retrying in 2s (attempt 1/3): connection refused"
	if scr := ansi.Strip(m.Render()); !strings.Contains(scr, line) {
		t.Fatalf("the retry line is not shown:\n%s", scr)
	}
	m.Update(eventMsg{event.Event{Session: "S1", Turn: 1, Data: event.TextDelta{Iteration: 1, Text: "Hi there"}}})
	scr := ansi.Strip(m.Render())
	if strings.Contains(scr, "retrying in") || !strings.Contains(scr, "Hi there") {
		t.Fatalf("after the next output the retry line should be gone:\n%s", scr)
	}
}
