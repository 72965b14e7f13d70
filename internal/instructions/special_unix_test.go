//go:build unix

package instructions

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// An AGENTS.md that is a FIFO is skipped at once (opening it would wait
// for a writer forever); CLAUDE.md beside it is still read.
func TestFIFOSkipped(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"CLAUDE.md": "Use tabs."})
	if err := syscall.Mkfifo(filepath.Join(dir, AgentsFile), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []File, 1)
	go func() { done <- Load(ws, Options{}) }()
	select {
	case files := <-done:
		if len(files) != 1 || files[0].Display != ClaudeFile || files[0].Text != "Use tabs." {
			t.Errorf("files %+v", files)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}
