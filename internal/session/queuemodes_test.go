package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTakeFollowUps(t *testing.T) {
	q := []PromptInput{{Text: "a"}, {Text: "b"}, {Text: "/compact"}, {Text: "c", Model: "other"}, {Text: "d"}}
	in, rest := takeFollowUps(q, QueueOneAtATime)
	if in.Text != "a" || len(rest) != 4 {
		t.Errorf("one at a time: %q, %d left", in.Text, len(rest))
	}
	in, rest = takeFollowUps(q, QueueAll)
	if in.Text != "a\n\nb\n\nd" {
		t.Errorf("all: %q", in.Text)
	}
	if diff := cmp.Diff([]string{"/compact", "c"}, texts(rest)); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	// A slash command first runs alone.
	if in, rest := takeFollowUps(rest, QueueAll); in.Text != "/compact" || len(rest) != 1 {
		t.Errorf("command first: %q, %d left", in.Text, len(rest))
	}
}

func TestQueueModesPerSession(t *testing.T) {
	s := &Service{}
	if got := s.QueueModes("a"); got != DefaultQueueModes() {
		t.Errorf("default %+v", got)
	}
	s.SetQueueModes("a", QueueModes{Steering: QueueOneAtATime})
	s.SetQueueModes("a", QueueModes{FollowUp: QueueAll})
	if got := s.QueueModes("a"); got != (QueueModes{Steering: QueueOneAtATime, FollowUp: QueueAll, Interrupt: InterruptWait}) {
		t.Errorf("after setting %+v", got)
	}
	if got := s.QueueModes("b"); got != DefaultQueueModes() {
		t.Errorf("another session %+v", got)
	}
	if _, err := ParseQueueMode("some"); err == nil {
		t.Error("a bad mode parsed")
	}
}

func texts(ins []PromptInput) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.Text)
	}
	return out
}
