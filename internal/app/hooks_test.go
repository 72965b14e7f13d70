package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/hooks"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/workspace"
)

// TestHooksRunSandboxed: a hook runs like an ordinary command — it may
// write the workspace but not outside it, and it does not see the
// secrets the shell's environment rules drop.
func TestHooksRunSandboxed(t *testing.T) {
	sb := sandbox.New(os.Args[0]) // in-process Landlock: no helper needed
	if !sb.Status().Active() {
		t.Skipf("no sandbox here (%s): this test needs Landlock", sb.Status().Reason)
	}
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	cfgDir := filepath.Join(home, "c")
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + cfgDir, "XDG_DATA_HOME=" + filepath.Join(home, "d"), "XDG_STATE_HOME=" + filepath.Join(home, "s")}})
	if err != nil {
		t.Fatal(err)
	}
	script := `echo in > "$CLAUDE_PROJECT_DIR/inside.txt"; echo out > ` + filepath.Join(outside, "outside.txt") + `; echo "secret=$MY_API_TOKEN" > "$CLAUDE_PROJECT_DIR/env.txt"`
	settings := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":` + quote(script) + `}]}]}}`
	if err := os.MkdirAll(filepath.Join(cfgDir, "olly"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "olly", hooks.UserFileName), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MY_API_TOKEN", "hunter2")
	a := &App{Config: cfg, Sandbox: sb, Log: slog.New(slog.DiscardHandler)}
	w, err := workspace.New([]string{ws})
	if err != nil {
		t.Fatal(err)
	}
	r := a.hookRunner("s", w)
	if r == nil {
		t.Fatal("no hook runner for a user hook")
	}
	r.Run(context.Background(), hooks.UserPromptSubmit, "s", "", map[string]any{"prompt": "hi"})
	if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "in\n" {
		t.Fatalf("the hook could not write the workspace: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "outside.txt")); err == nil {
		t.Fatal("the hook wrote outside the workspace: it was not sandboxed")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "env.txt")); string(b) != "secret=\n" {
		t.Fatalf("the hook's environment kept a secret: %q", b)
	}
}

func quote(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}
