package sandbox

import (
	"os"
	"path/filepath"
	"slices"
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

// TestPinResolvesNow: Pin names the places as they resolve when it is
// called (a cache under a linked folder, one not made yet) and sets
// Pinned, so Plan grants them until one is swapped.
func TestPinResolvesNow(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	realCache := filepath.Join(dir, "data")
	if err := os.Mkdir(realCache, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "cache")
	if err := os.Symlink(realCache, linked); err != nil {
		t.Fatal(err)
	}
	spec := Pin(Spec{Policy: WorkspaceWrite, Writable: []string{linked, filepath.Join(linked, "later")}})
	want := []string{realCache, filepath.Join(realCache, "later")}
	if !spec.Pinned || !slices.Equal(spec.Writable, want) {
		t.Fatalf("Pin = %q (pinned %v), want %q", spec.Writable, spec.Pinned, want)
	}
	if g, ok := grantOf(Plan(spec), realCache); !ok || g.Access != Write {
		t.Errorf("a pinned cache behind a link is not granted: %+v, %v", g, ok)
	}
}
