//go:build unix

package agent

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// TestWorkspaceFIFOsDoNotBlock: a FIFO the workspace holds (a command may
// plant one) is refused as an @-attachment, an image or a project file,
// and never waited on. The reads go through workspace.ReadRegularNoFollow,
// which checks what it opened, so a FIFO swapped in after Resolve cannot
// block them either.
func TestWorkspaceFIFOsDoNotBlock(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pipe.txt", "pipe.png", "AGENTS.md"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"pipe.txt", "pipe.png"} {
			_, ok, err := attacher{ws: ws, maxBytes: 1000}.attach(mention{path: name, explicit: true})
			if ok || err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("attach @%s = %v, %v; want a not-a-regular-file error", name, ok, err)
			}
		}
		if text, more := readProjectFile(ws, "AGENTS.md"); text != "" || more {
			t.Errorf("readProjectFile(FIFO) = %q, %v; want nothing", text, more)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO in the workspace blocked")
	}
}
