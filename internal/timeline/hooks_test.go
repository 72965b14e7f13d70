package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
)

func TestHookRunsThatBlockOrFailAreShown(t *testing.T) {
	b := NewBuilder()
	at := time.Unix(0, 0)
	for _, p := range []event.Payload{
		event.UserMessage{Text: "go"},
		event.TurnStarted{Mode: "agent", Model: "m"},
		event.HookRun{Event: "PostToolUse", Tool: "Write", Command: "gofmt -w .", ExitCode: 0},
		event.HookRun{Event: "PreToolUse", Tool: "Bash", Command: "./guard.sh", ExitCode: 2, Blocked: true, Reason: "no rm"},
		event.HookRun{Event: "Stop", Command: "./slow.sh", ExitCode: -1, TimedOut: true, DurationMs: 60000},
	} {
		b.Apply(event.Event{Session: "s", Turn: 1, At: at, Data: p})
	}
	var notices []string
	for _, it := range b.Timeline().Items {
		for _, blk := range it.Blocks {
			if blk.Kind == BlockNotice {
				notices = append(notices, blk.Text)
			}
		}
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "PreToolUse Bash hook blocked (./guard.sh): no rm") || !strings.Contains(notices[1], "timed out") {
		t.Fatalf("notices = %q", notices)
	}
}
