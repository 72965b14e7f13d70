//go:build unix

package workspace

import (
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestWalkPastPlantedFIFOs: a FIFO a command planted as the root's .git
// file or as a folder's .gitignore neither hangs the walk (a plain open
// waits for a writer forever) nor hides the files beside it.
func TestWalkPastPlantedFIFOs(t *testing.T) {
	base := tempDir(t)
	proj := filepath.Join(base, "proj")
	tree(t, base, "proj/main.go", "proj/sub/a.go")
	for _, p := range []string{"proj/.git", "proj/sub/.gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(base, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan []string, 1)
	go func() {
		w := newWS(t, []string{proj})
		done <- collect(t, w, ".", WalkOptions{})
	}()
	select {
	case got := <-done:
		for _, p := range []string{"main.go", "sub/a.go"} {
			if !slices.Contains(got, p) {
				t.Errorf("walk misses %s: %v", p, got)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the walk hangs on a planted FIFO")
	}
}
