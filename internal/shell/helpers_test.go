package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newTestManager returns a manager over a fresh workspace (with a "sub"
// directory), closed when the test ends.
func newTestManager(t *testing.T, mod func(*ManagerOptions)) (*Manager, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := ManagerOptions{Roots: []string{ws}, ArtifactDir: t.TempDir()}
	if mod != nil {
		mod(&opts)
	}
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.CloseAll(); err != nil {
			t.Errorf("CloseAll: %v", err)
		}
	})
	return m, ws
}

// mustRun runs command and fails the test on a Go error.
func mustRun(t *testing.T, sh *Shell, command string, opts RunOptions) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := sh.Run(ctx, command, opts)
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	return res
}

func hasNote(res *Result, substr string) bool {
	for _, n := range res.Notes {
		if strings.Contains(n, substr) {
			return true
		}
	}
	return false
}
