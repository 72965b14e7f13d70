package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/sandbox"
)

// TestDoctorNamesNestedRepositories: olly doctor run in a workspace
// holding a clone names it as kept read-only.
func TestDoctorNamesNestedRepositories(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the search runs on Linux (Seatbelt's rule covers .git at any depth)")
	}
	srv := llmtest.New(t)
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	if err := os.MkdirAll(filepath.Join(e.ws, "third_party/lib/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, checks, _ := runDoctorJSON(t, e, "--base-url", srv.URL())
	if c := findCheck(t, checks, "nested git"); c.Status != checkOK || !strings.Contains(c.Detail, "third_party/lib/.git") {
		t.Errorf("git check = %+v", c)
	}
}

func TestNestedGitCheckSaysTheCut(t *testing.T) {
	cut := "the search for nested git repositories was cut short (in /ws it stopped at 20000 folders): repositories where it did not look are not protected from sandboxed commands"
	got := nestedGitCheck("/ws", sandbox.Nested{Git: []string{"/ws/a/.git"}, Cut: cut})
	if len(got) != 1 || got[0].Status != checkWarn || !strings.Contains(got[0].Detail, cut) || got[0].Fix == "" {
		t.Errorf("checks = %+v", got)
	}
	if got := nestedGitCheck("/ws", sandbox.Nested{}); got != nil {
		t.Errorf("no repositories: %+v, want no line", got)
	}
	many := sandbox.Nested{Git: []string{"/ws/1/.git", "/ws/2/.git", "/ws/3/.git", "/ws/4/.git", "/ws/5/.git", "/ws/6/.git", "/ws/7/.git"}}
	if got := nestedGitCheck("/ws", many); len(got) != 1 || !strings.Contains(got[0].Detail, "7 nested") || !strings.Contains(got[0].Detail, "and 2 more") {
		t.Errorf("checks = %+v", got)
	}
}
