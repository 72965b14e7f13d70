package app

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/hooks"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/workspace"
)

// testTrustApp is an App whose settings live in a temporary home, with
// a project hook file in workspace ws that nobody trusted.
func testTrustApp(t *testing.T) (*App, string, *bytes.Buffer) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "c"), "XDG_DATA_HOME=" + filepath.Join(home, "d"), "XDG_STATE_HOME=" + filepath.Join(home, "s")}})
	if err != nil {
		t.Fatal(err)
	}
	writeHooks(t, ws, "echo one")
	var log bytes.Buffer
	a := &App{Config: cfg, Sandbox: sandbox.New(""), Log: slog.New(slog.NewTextHandler(&log, nil))}
	return a, ws, &log
}

func writeHooks(t *testing.T, ws, command string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, ".olly"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + quote(command) + `}]}]}}`
	if err := os.WriteFile(filepath.Join(ws, hooks.ProjectFile), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUntrustedHooksLoggedOnce: the runner is rebuilt at every turn, but
// an untrusted project hook file is logged once per session and once
// more when the file changes, not at every turn.
func TestUntrustedHooksLoggedOnce(t *testing.T) {
	a, ws, log := testTrustApp(t)
	w, err := workspace.New([]string{ws})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int { return strings.Count(log.String(), "project hooks not trusted") }
	for range 3 {
		if r := a.hookRunner("s1", w); r == nil || len(r.Untrusted()) != 1 {
			t.Fatalf("runner = %v, want one untrusted file", r)
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("three turns of one session logged %d warnings, want 1:\n%s", n, log)
	}
	a.hookRunner("s2", w)
	if n := count(); n != 2 {
		t.Fatalf("a second session: %d warnings, want 2", n)
	}
	writeHooks(t, ws, "echo two")
	a.hookRunner("s1", w)
	a.hookRunner("s1", w)
	if n := count(); n != 3 {
		t.Fatalf("after the file changed: %d warnings, want 3", n)
	}
}
