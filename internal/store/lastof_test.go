package store

import (
	"context"
	"errors"
	"testing"
)

// LastOfType finds the last event of a type on the current branch: not
// one of another branch, nothing on an empty session or a branch without
// one.
func TestLastOfType(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	last := func() string {
		t.Helper()
		rec, err := s.LastOfType(ctx, "a", "todo_list")
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			return ""
		}
		return string(rec.Payload)
	}
	if got := last(); got != "" {
		t.Errorf("empty session: %s", got)
	}
	appendText(t, s, "a", "user_message", "do it")         // 1
	appendText(t, s, "a", "todo_list", "first")            // 2
	appendText(t, s, "a", "assistant_text", "working")     // 3
	appendText(t, s, "a", "todo_list", "second")           // 4
	appendText(t, s, "a", "assistant_text", "still going") // 5
	if got := last(); got != `{"text":"second"}` {
		t.Errorf("one branch: %s", got)
	}
	// Branch from 3: the second list is on the other branch.
	if err := s.SetLeaf(ctx, "a", 3); err != nil {
		t.Fatal(err)
	}
	appendText(t, s, "a", "user_message", "edited") // 6
	if got := last(); got != `{"text":"first"}` {
		t.Errorf("after branching: %s", got)
	}
	// A branch from the start has none.
	if err := s.SetLeaf(ctx, "a", 0); err != nil {
		t.Fatal(err)
	}
	appendText(t, s, "a", "user_message", "fresh") // 7
	if got := last(); got != "" {
		t.Errorf("fresh branch: %s", got)
	}
	if _, err := s.LastOfType(ctx, "zz", "todo_list"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing session: %v", err)
	}
}
