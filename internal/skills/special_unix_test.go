//go:build unix

package skills

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// A FIFO for a SKILL.md or a skill's file is refused at once (opening it
// would wait for a writer forever); so is a file over the cap.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	skillsDir := filepath.Join(dir, ".olly", "skills")
	write(t, skillsDir, map[string]string{"ok/SKILL.md": skill("ok", "fine", "Body."), "pipe/x": ""})
	for _, p := range []string{filepath.Join(skillsDir, "pipe", File), filepath.Join(skillsDir, "ok", "pipe.md")} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(skillsDir, "ok", "huge.md"), []byte(strings.Repeat("x", MaxFileBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		list, problems := Discover(ws, "")
		var b strings.Builder
		for _, s := range list {
			b.WriteString("skill " + s.Name + "\n")
			for _, f := range []string{"pipe.md", "huge.md"} {
				if _, err := s.ReadFile(f); err != nil {
					b.WriteString(f + ": " + err.Error() + "\n")
				}
			}
		}
		for _, p := range problems {
			b.WriteString(filepath.Base(filepath.Dir(p.Path)) + ": " + p.Reason + "\n")
		}
		done <- b.String()
	}()
	select {
	case got := <-done:
		for _, w := range []string{"skill ok\n", "pipe.md: ", "not a regular file", "huge.md: ", "too large", "pipe: "} {
			if !strings.Contains(got, w) {
				t.Errorf("lacks %q:\n%s", w, got)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Discover or ReadFile blocked on a FIFO") // the FIFOs stay blocked until the test binary exits
	}
}
