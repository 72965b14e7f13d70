package tools

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/lsp"
	"github.com/olly-agent/olly/internal/workspace"
)

// goFixture copies the language-server fixture module (shared with
// internal/lsp) to a temporary workspace.
func goFixture(t testing.TB) *workspace.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "lsp", "testdata", "gofixture")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{dir}, workspace.WithHome(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// needGopls skips a test when gopls is missing.
func needGopls(t testing.TB) {
	t.Helper()
	for _, cmd := range []string{"gopls", "go"} {
		if _, err := exec.LookPath(cmd); err != nil {
			t.Skipf("%s is not on PATH; install gopls with: go install golang.org/x/tools/gopls@v0.23.0", cmd)
		}
	}
}

// goplsEnv returns an Env over a copy of the fixture with a running
// manager as its Diagnoser; the manager is closed when the test ends.
func goplsEnv(t testing.TB) (*Env, *lsp.Manager) {
	t.Helper()
	needGopls(t)
	ws := goFixture(t)
	m := lsp.NewManager(ws, lsp.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() {
		done := make(chan struct{})
		go func() { _ = m.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("closing the language servers took over 20s")
		}
	})
	return &Env{Workspace: ws, Diagnostics: m, Session: "s1"}, m
}

func lspCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
