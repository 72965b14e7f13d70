//go:build linux

package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPinFolders: every folder from the outermost writable place down to
// a protected path's own folder, shallowest first, each once; none for a
// place's own .git or a path outside the places.
func TestPinFolders(t *testing.T) {
	places := []string{"/ws", "/ws/inner", "/cache"}
	paths := []string{"/ws/.git", "/ws/tp/lib/.git", "/ws/tp/other/.git", "/ws/inner/a/.git", "/ws/lazy", "/elsewhere/x/.git"}
	want := []string{"/ws/inner", "/ws/tp", "/ws/inner/a", "/ws/tp/lib", "/ws/tp/other"}
	if diff := cmp.Diff(want, pinFolders(places, paths)); diff != "" {
		t.Errorf("pinFolders (-want +got):\n%s", diff)
	}
}
