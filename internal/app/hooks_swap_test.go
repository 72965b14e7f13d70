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

// TestHookRootSwappedForLinkIsNotFollowed: a workspace root replaced by
// a symbolic link after the workspace was opened (a command that could
// write the folder holding it) does not make the link's target writable
// to a hook's sandbox.
func TestHookRootSwappedForLinkIsNotFollowed(t *testing.T) {
	sb := sandbox.New(os.Args[0]) // in-process Landlock: no helper needed
	if !sb.Status().Active() {
		t.Skipf("no sandbox here (%s): this test needs Landlock", sb.Status().Reason)
	}
	home := t.TempDir()
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(parent, "proj")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ws, outside} {
		if err := os.WriteFile(filepath.Join(d, "canary"), []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfgDir := filepath.Join(home, "c")
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + cfgDir, "XDG_DATA_HOME=" + filepath.Join(home, "d"), "XDG_STATE_HOME=" + filepath.Join(home, "s")}})
	if err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":` + quote(`echo pwned >> "`+ws+`/canary"`) + `}]}]}}`
	if err := os.MkdirAll(filepath.Join(cfgDir, "olly"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "olly", hooks.UserFileName), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &App{Config: cfg, Sandbox: sb, Log: slog.New(slog.DiscardHandler)}
	w, err := workspace.New([]string{ws})
	if err != nil {
		t.Fatal(err)
	}
	run := func() {
		r := a.hookRunner("s", w)
		if r == nil {
			t.Fatal("no hook runner for a user hook")
		}
		r.Run(context.Background(), hooks.UserPromptSubmit, "s", "", map[string]any{"prompt": "hi"})
	}
	run()
	if b, _ := os.ReadFile(filepath.Join(ws, "canary")); string(b) != "original\npwned\n" {
		t.Fatalf("the hook did not write the workspace (the check below proves nothing then): %q", b)
	}
	if err := os.Rename(ws, ws+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, ws); err != nil {
		t.Fatal(err)
	}
	run()
	if b, _ := os.ReadFile(filepath.Join(outside, "canary")); string(b) != "original\n" {
		t.Fatalf("the hook wrote through the root swapped for a link: %q", b)
	}
}
