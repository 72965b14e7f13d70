package session

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/olly-agent/olly/internal/store"
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
	s, _, _ := newService(t, runnerFunc(simpleTurn))
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

// The modes live with the session's live state and go when the session
// is deleted; a refused delete keeps them.
func TestDeleteForgetsQueueModes(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, runnerFunc(simpleTurn))
	set := QueueModes{Steering: QueueOneAtATime, FollowUp: QueueAll, Interrupt: InterruptImmediate}
	svc.SetQueueModes(sess.ID, set)
	if err := st.SetStatus(ctx, sess.ID, store.StatusGenerating); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, sess.ID); err == nil {
		t.Fatal("deleted a generating session")
	}
	if got := svc.QueueModes(sess.ID); got != set {
		t.Errorf("a refused delete changed the modes: %+v", got)
	}
	if err := st.SetStatus(ctx, sess.ID, store.StatusIdle); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	svc.mu.Lock()
	_, kept := svc.sessions[sess.ID]
	_, ws := svc.spaces[sess.ID]
	svc.mu.Unlock()
	if kept || ws {
		t.Errorf("after delete the service still holds the session: live %v, workspace %v", kept, ws)
	}
	if got := svc.QueueModes(sess.ID); got != DefaultQueueModes() {
		t.Errorf("modes after delete %+v", got)
	}
}

func texts(ins []PromptInput) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.Text)
	}
	return out
}
