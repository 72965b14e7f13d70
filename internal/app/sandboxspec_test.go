package app

import (
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/sandbox"
)

// TestSandboxSpecCaches: only the build caches (sandbox.writable's
// defaults, the environment's) are left out of the nested-repository
// search; a folder the person adds to sandbox.writable is searched.
func TestSandboxSpecCaches(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	gomod := filepath.Join(t.TempDir(), "gomod")
	t.Setenv("GOMODCACHE", gomod)
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "c"), "XDG_DATA_HOME=" + filepath.Join(home, "d"), "XDG_STATE_HOME=" + filepath.Join(home, "s")}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sandbox.Writable = append(cfg.Sandbox.Writable, "~/work")
	a := &App{Config: cfg, Sandbox: sandbox.New(""), Log: slog.New(slog.DiscardHandler)}
	spec := a.sandboxSpec()
	work, cache := filepath.Join(home, "work"), filepath.Join(home, ".cache")
	if !slices.Contains(spec.Writable, work) {
		t.Fatalf("~/work is not writable: %q", spec.Writable)
	}
	if slices.Contains(spec.Caches, work) {
		t.Errorf("~/work is treated as a build cache, so nested repositories there are never searched: %q", spec.Caches)
	}
	for _, c := range []string{cache, gomod} {
		if !slices.Contains(spec.Caches, c) {
			t.Errorf("the build cache %s is searched: caches %q", c, spec.Caches)
		}
	}
}
