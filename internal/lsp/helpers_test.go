package lsp

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/workspace"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) != "" {
		os.Exit(runFakeServer())
	}
	goleak.VerifyTestMain(m)
}

// copyFixture copies testdata/<name> to a fresh temporary directory and
// returns the workspace rooted there.
func copyFixture(t testing.TB, name string) *workspace.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", name)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
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

// needGopls skips the test when gopls is not installed.
func needGopls(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed; install it with: go install golang.org/x/tools/gopls@v0.23.0")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("gopls needs the go command on PATH")
	}
}

// testLogger writes the manager's log to the test log, so a failure shows
// what the server said.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(&tLogWriter{t: t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tLogWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *tLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// syncBuilder collects log output from several goroutines.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func textLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newGoplsManager starts a manager over a copy of the Go fixture.
func newGoplsManager(t testing.TB) (*Manager, *workspace.Workspace) {
	t.Helper()
	needGopls(t)
	ws := copyFixture(t, "gofixture")
	m := NewManager(ws, Options{Logger: testLogger(t)})
	t.Cleanup(func() { closeManager(t, m) })
	return m, ws
}

func closeManager(t testing.TB, m *Manager) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_ = m.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Error("Close did not return within 20s")
	}
}

// posOf returns the protocol position of the first occurrence of needle
// (plus offset bytes) in the file.
func posOf(t testing.TB, path, needle string, offset int) Position {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(text, []byte(needle))
	if i < 0 {
		t.Fatalf("%q not found in %s", needle, path)
	}
	p, err := NewMapper(text).Position(i + offset)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
