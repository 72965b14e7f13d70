package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanPinnedSkipsSwappedPlaces: with Spec.Pinned, a writable place or
// an own folder that a link has replaced since the caller accepted it is
// not granted, nor is the link's target; without Pinned the link is
// followed (a caller that gives links on purpose, such as a cache under a
// linked ~/.cache).
func TestPlanPinnedSkipsSwappedPlaces(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(dir, "home")
	kept := filepath.Join(dir, "kept")
	for _, d := range []string{target, kept} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	allowed, own := filepath.Join(dir, "allowed"), filepath.Join(dir, "own")
	for _, l := range []string{allowed, own} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{allowed, kept}, Own: []string{own}}
	if g, ok := grantOf(Plan(spec), target); !ok || g.Access != Write {
		t.Fatalf("without Pinned the link's target should be granted (the check below proves nothing otherwise): %+v", g)
	}
	spec.Pinned = true
	gs := Plan(spec)
	if g, ok := grantOf(gs, target); ok && g.Access != Read {
		t.Errorf("a pinned place swapped for a link granted its target: %+v", g)
	}
	if g, ok := grantOf(gs, kept); !ok || g.Access != Write {
		t.Errorf("a pinned place that is still itself is not granted: %+v, %v", g, ok)
	}
}

// TestSeatbeltPinnedSkipsSwappedPlaces: the same for the macOS profile,
// which would otherwise allow the link's resolved target.
func TestSeatbeltPinnedSkipsSwappedPlaces(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(dir, "home")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	allowed, own := filepath.Join(dir, "allowed"), filepath.Join(dir, "own")
	for _, l := range []string{allowed, own} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{allowed}, Own: []string{own}}
	if !strings.Contains(SeatbeltProfile(spec), sbQuote(target)) {
		t.Fatal("without Pinned the profile should allow the link's target (the check below proves nothing otherwise)")
	}
	spec.Pinned = true
	if p := SeatbeltProfile(spec); strings.Contains(p, sbQuote(target)) {
		t.Errorf("a pinned place swapped for a link allowed its target:\n%s", p)
	}
}
