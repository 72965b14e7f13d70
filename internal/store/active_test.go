package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// agent.maxActiveSessions: a session generating in another process takes
// a place; once that process is gone, its session no longer counts.
func TestMaxGeneratingAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetMaxGenerating(1)
	newSession(t, s, "a")
	newSession(t, s, "b")

	child := childCmd(t, "generate", path, "a")
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	err = s.SetStatus(ctx, "b", StatusGenerating)
	var limit *ActiveLimitError
	if !errors.As(err, &limit) || !errors.Is(err, ErrTooManyActive) || len(limit.Active) != 1 || limit.Active[0].ID != "a" {
		t.Fatalf("second session with a limit of 1: %v", err)
	}
	for _, want := range []string{"agent.maxActiveSessions", fmt.Sprintf("olly process %d", child.Process.Pid), "olly config set agent.maxActiveSessions 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if sess, _ := s.Session(ctx, "b"); sess.Status != StatusIdle {
		t.Errorf("refused session's status: %s", sess.Status)
	}

	// Two allowed: b runs beside the child's a.
	s.SetMaxGenerating(2)
	if err := s.SetStatus(ctx, "b", StatusGenerating); err != nil {
		t.Fatalf("limit 2: %v", err)
	}
	if err := s.SetStatus(ctx, "b", StatusIdle); err != nil {
		t.Fatal(err)
	}

	// The child dies generating: its session is interrupted, not running.
	s.SetMaxGenerating(1)
	_ = child.Process.Kill()
	stdin.Close()
	_ = child.Wait()
	if err := s.SetStatus(ctx, "b", StatusGenerating); err != nil {
		t.Fatalf("after the other process died: %v", err)
	}
	// Setting generating again in the session this process holds is not
	// a second place.
	if err := s.SetStatus(ctx, "b", StatusGenerating); err != nil {
		t.Errorf("again in the same session: %v", err)
	}
	s.SetMaxGenerating(0)
	if err := s.SetStatus(ctx, "a", StatusGenerating); err != nil {
		t.Errorf("no bound: %v", err)
	}
}
