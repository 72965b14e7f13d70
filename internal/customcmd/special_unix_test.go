//go:build unix

package customcmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// A FIFO among the command files is refused at once (opening it would
// wait for a writer forever) and a huge file by its size, each with a
// problem naming it; the other commands still load.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	cmds := filepath.Join(dir, ".olly", "commands")
	write(t, cmds, map[string]string{"ok.md": "Do it."})
	if err := syscall.Mkfifo(filepath.Join(cmds, "pipe.md"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(cmds, "huge.md"), []byte(strings.Repeat("x", MaxFileBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		cmds     []Command
		problems []Problem
	}
	done := make(chan result, 1)
	go func() {
		c, p := Load(ws, "")
		done <- result{c, p}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(filepath.Join(cmds, "pipe.md"), os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("Load blocked on a FIFO")
	}
	if len(r.cmds) != 1 || r.cmds[0].Name != "ok" {
		t.Errorf("commands %+v", r.cmds)
	}
	var reasons []string
	for _, p := range r.problems {
		reasons = append(reasons, filepath.Base(p.Path)+": "+p.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, w := range []string{"pipe.md: not a regular file", "huge.md: a command file may have at most 32000 bytes"} {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q:\n%s", w, all)
		}
	}
}
