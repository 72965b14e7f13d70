//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// A FIFO where the search for git metadata reads a file (planted by a
// sandboxed command: Landlock lets it make FIFOs) must not hang the plan:
// opening one for reading would wait for a writer forever. The
// repository it sits in stays protected.
func TestGitMetadataFIFO(t *testing.T) {
	for _, fifo := range []string{
		".gitmodules",                     // the root's
		"n/.gitmodules",                   // a nested repository's
		"n/.git/index",                    // its index (gitlinks)
		"n/.git/config",                   // its config (object format)
		"n/.git/modules/m/config",         // a submodule's core.worktree
		"w/.git",                          // a worktree's pointer file
		"gitdirs/wt/commondir",            // a worktree's commondir
		"n/.git/modules/m/modules/config", // a folder looked into
	} {
		t.Run(fifo, func(t *testing.T) {
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			for _, d := range []string{".git", "n/.git/modules/m/modules", "n/m", "w", "gitdirs/wt"} {
				must(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
			}
			for name, content := range map[string]string{
				"w/.git":                "gitdir: ../gitdirs/wt\n",
				"n/.git/index":          "DIRC", // read after the config
				"n/.git/modules/m/HEAD": "ref: refs/heads/main\n",
			} {
				if name != fifo {
					must(t, os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644))
				}
			}
			p := filepath.Join(ws, fifo)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFO here: %v", err)
			}
			spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
			done := make(chan []string, 1)
			go func() { done <- spec.searched().readOnly(true) }()
			select {
			case ro := <-done:
				for _, want := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, "n/.git")} {
					if !slices.Contains(ro, want) {
						t.Errorf("%s is not kept read-only: %q", want, ro)
					}
				}
			case <-time.After(5 * time.Second):
				if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
					w.Close() // let the search go on, so the test can end
				}
				<-done
				t.Fatalf("the plan hung on the FIFO %s", fifo)
			}
		})
	}
}
