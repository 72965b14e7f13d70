package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/store"
)

// TestPrestartScratch: PrestartShell opens the session's scratch
// directory as the turn will, refuses a link planted in its place, and
// Close removes the directory it made when no turn used it (only the
// link itself, never what a link there points to).
func TestPrestartScratch(t *testing.T) {
	a, ws := prestartApp(t, approval.Policy{})
	a.PrestartShell(&store.Session{ID: "s1", Workspace: ws})
	base, _ := filepath.EvalSymlinks(a.scratchDir())
	dir := filepath.Join(base, "s1")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("PrestartShell did not make the scratch directory: %v", err)
	}
	target := t.TempDir()
	link := filepath.Join(base, "s2")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	a.PrestartShell(&store.Session{ID: "s2", Workspace: ws})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Error("the scratch directory PrestartShell made is left after Close")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error("a link PrestartShell refused was removed as if it had made it")
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target is gone: %v", err)
	}
}
