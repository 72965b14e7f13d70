package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/workspace"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=T"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestProjectContext(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.md": "OUTSIDE SECRET"})
	writeFiles(t, dir, map[string]string{
		"AGENTS.md": "Run `make test` before committing.\n",
		"go.mod":    "module example.com/x\n\ngo 1.26\n",
		"README.md": "# X\n" + strings.Repeat("A long readme line about the project.\n", 500),
		"notes.txt": "not a project file",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q", "-b", "trunk")
	runGit(t, dir, "add", "AGENTS.md", "go.mod")
	runGit(t, dir, "commit", "-q", "-m", "initial layout")
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := buildProjectContext(context.Background(), ws, defaultProjectContextBytes)
	mustContain(t, "project context", got, "<project_context>", "## go.mod\nmodule example.com/x",
		"## Git\nBranch: trunk", "?? README.md", "initial layout", "## README.md\n# X", "… (cut short)", "</project_context>")
	// Instruction files have a block of their own (extend.go).
	for _, bad := range []string{"OUTSIDE SECRET", "not a project file", "AGENTS.md"} {
		if strings.Contains(got, bad) {
			t.Errorf("project context contains %q", bad)
		}
	}
	if len(got) > defaultProjectContextBytes+200 {
		t.Errorf("project context is %d bytes, budget %d", len(got), defaultProjectContextBytes)
	}
	// Order: git, manifests, README.
	order := []string{"## Git", "## go.mod", "## README.md"}
	for i := 1; i < len(order); i++ {
		if strings.Index(got, order[i-1]) > strings.Index(got, order[i]) {
			t.Errorf("%s comes after %s", order[i-1], order[i])
		}
	}
	// A small budget keeps the first sections and drops the rest.
	small := buildProjectContext(context.Background(), ws, 300)
	if !strings.Contains(small, "## Git") || strings.Contains(small, "## README.md") || len(small) > 600 {
		t.Errorf("small budget (%d bytes):\n%s", len(small), small)
	}
	// Nothing to say: no block at all.
	empty, _ := workspace.New([]string{t.TempDir()})
	if got := buildProjectContext(context.Background(), empty, defaultProjectContextBytes); got != "" {
		t.Errorf("empty workspace: %q", got)
	}
}

// Computed once per session: later changes show in a new session only.
func TestProjectContextCached(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "first\n"})
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t)})
	if err != nil {
		t.Fatal(err)
	}
	first := a.projectContext(context.Background(), "s1", ws)
	writeFiles(t, dir, map[string]string{"go.mod": "second\n"})
	if again := a.projectContext(context.Background(), "s1", ws); again != first {
		t.Errorf("same session recomputed: %q", again)
	}
	if other := a.projectContext(context.Background(), "s2", ws); !strings.Contains(other, "second") {
		t.Errorf("another session got %q", other)
	}
	// A computation cut short by cancellation is not kept.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = a.projectContext(ctx, "s3", ws)
	writeFiles(t, dir, map[string]string{"go.mod": "third\n"})
	if got := a.projectContext(context.Background(), "s3", ws); !strings.Contains(got, "third") {
		t.Errorf("after a canceled computation: %q", got)
	}
}

func TestCutAtLine(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		more bool
		want string
	}{
		{"short", 100, false, "short"},
		{"short", 100, true, "short\n… (cut short)"},
		// Already cut: the last, partial line goes.
		{"line one\nline tw", 100, true, "line one\n… (cut short)"},
		{"aaaa\nbbbb\ncccc\ndddd\neeee\nffff\n", 22, false, "aaaa\n… (cut short)"},
		{"ééééééééééé", 20, false, "éé\n… (cut short)"},
	}
	for _, tc := range cases {
		if got := cutAtLine(tc.s, tc.n, tc.more); got != tc.want {
			t.Errorf("cutAtLine(%q, %d, %v) = %q, want %q", tc.s, tc.n, tc.more, got, tc.want)
		}
	}
}
