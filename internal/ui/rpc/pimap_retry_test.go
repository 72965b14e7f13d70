package rpc

import (
	"encoding/json"
	"testing"

	"github.com/olly-agent/olly/internal/event"
)

func TestPiMappingOfRetries(t *testing.T) {
	m := newPiMapper("ollama", false)
	var got []string
	for _, ev := range events(1,
		event.TurnStarted{Mode: "agent", Model: "m"},
		event.ModelRetry{Iteration: 1, Phase: event.RetryStart, Attempt: 1, MaxAttempts: 3, DelayMs: 1000, Error: "server error 503"},
		event.ModelRetry{Iteration: 1, Phase: event.RetryEnd, Attempt: 1, Success: true},
		event.ModelRetry{Iteration: 2, Phase: event.RetryStart, Attempt: 1, MaxAttempts: 3, DelayMs: 1000, Error: "connection refused"},
		event.ModelRetry{Iteration: 2, Phase: event.RetryEnd, Attempt: 1, Error: "connection refused"},
	) {
		for _, pe := range m.Map(ev) {
			b, err := json.Marshal(pe)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
	}
	want := []string{
		`{"type":"agent_start"}`,
		`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":1000,"errorMessage":"server error 503"}`,
		`{"type":"auto_retry_end","success":true,"attempt":1}`,
		`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":1000,"errorMessage":"connection refused"}`,
		`{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"connection refused"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: %s, want %s", i, got[i], want[i])
		}
	}
}
