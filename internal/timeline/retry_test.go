package timeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/olly-agent/olly/internal/event"
)

func TestRetryLineUntilTheNextOutput(t *testing.T) {
	retry := event.ModelRetry{Iteration: 1, Phase: event.RetryStart, Attempt: 1, MaxAttempts: 3, DelayMs: 2000, Error: "connection refused"}
	evs := []event.Event{
		{Turn: 1, Data: event.UserMessage{Text: "hi"}},
		{Turn: 1, Data: event.TurnStarted{Mode: "agent"}},
		{Turn: 1, Data: retry},
	}
	b := NewBuilder()
	for _, ev := range evs {
		b.Apply(ev)
	}
	it := b.Timeline().Items[1]
	if it.Retry != "retrying in 2s (attempt 1/3): connection refused" {
		t.Fatalf("retry line %q", it.Retry)
	}
	b.Apply(event.Event{Turn: 1, Data: event.Status{Text: "Thinking…"}}) // the spinner does not end the wait
	if it.Retry == "" {
		t.Fatal("a status line cleared the retry line")
	}
	b.Apply(event.Event{Turn: 1, Data: event.TextDelta{Iteration: 1, Text: "Hello"}})
	if it.Retry != "" {
		t.Fatalf("the next output left the retry line: %q", it.Retry)
	}
	// An end (the retries gave up or succeeded) clears it too.
	b.Apply(event.Event{Turn: 1, Data: retry})
	b.Apply(event.Event{Turn: 1, Data: event.ModelRetry{Iteration: 1, Phase: event.RetryEnd, Attempt: 1}})
	if it.Retry != "" {
		t.Fatalf("retry end left the line: %q", it.Retry)
	}

	// Live, the turn ends as its stored events (which hold no retry) read.
	evs = append(evs, event.Event{Turn: 1, Data: event.AssistantMessage{Iteration: 1, Text: "Hello", Content: "Hello"}},
		event.Event{Turn: 1, Data: event.TurnFinished{Status: event.FinishDone, Iterations: 1}})
	if diff := cmp.Diff(asJSON(t, Build(durableOnly(evs))), asJSON(t, Build(evs))); diff != "" {
		t.Errorf("live differs from stored (-stored +live):\n%s", diff)
	}
}

func TestRetryLine(t *testing.T) {
	for _, tc := range []struct {
		p    event.ModelRetry
		want string
	}{
		{event.ModelRetry{Attempt: 2, MaxAttempts: 5, DelayMs: 1500, Error: "HTTP 503"}, "retrying in 1.5s (attempt 2/5): HTTP 503"},
		{event.ModelRetry{Attempt: 1, DelayMs: 250}, "retrying in 300ms (attempt 1)"},
	} {
		if got := RetryLine(tc.p); got != tc.want {
			t.Errorf("RetryLine(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
