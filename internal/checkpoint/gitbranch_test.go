package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitT(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "add", "a.txt")
	gitT(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func TestStartBranch(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	ctx := context.Background()
	day := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		setup   func(t *testing.T) string
		prompt  string
		created bool
		branch  string
		reason  string
	}{
		{"clean repository gets a branch", newRepo, "Fix the login bug, please!", true, "olly/2026-03-09-fix-the-login-bug-please", ""},
		{"a taken name gets a suffix", func(t *testing.T) string {
			dir := newRepo(t)
			gitT(t, dir, "branch", "olly/2026-03-09-add-tests")
			return dir
		}, "add tests", true, "olly/2026-03-09-add-tests-2", ""},
		{"modified file refuses", func(t *testing.T) string {
			dir := newRepo(t)
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
			return dir
		}, "x", false, "main", "uncommitted changes (1 file: a.txt)"},
		{"untracked files refuse", func(t *testing.T) string {
			dir := newRepo(t)
			for _, n := range []string{"n1", "n2", "n3", "n4"} {
				os.WriteFile(filepath.Join(dir, n), nil, 0o644)
			}
			return dir
		}, "x", false, "main", "(4 files: n1, n2, n3, …)"},
		{"already on an olly branch", func(t *testing.T) string {
			dir := newRepo(t)
			gitT(t, dir, "checkout", "-q", "-b", "olly/earlier")
			return dir
		}, "x", false, "olly/earlier", "already a branch olly started"},
		{"detached HEAD", func(t *testing.T) string {
			dir := newRepo(t)
			gitT(t, dir, "checkout", "-q", "--detach")
			return dir
		}, "x", false, "", "detached"},
		{"not a repository", func(t *testing.T) string { return t.TempDir() }, "x", false, "", "not a git repository"},
		{"no commits yet", func(t *testing.T) string {
			dir := t.TempDir()
			gitT(t, dir, "init", "-q")
			return dir
		}, "Start the project", true, "olly/2026-03-09-start-the-project", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			b, err := StartBranch(ctx, dir, tt.prompt, day)
			if err != nil {
				t.Fatal(err)
			}
			if b.Created != tt.created || b.Name != tt.branch || !strings.Contains(b.Reason, tt.reason) {
				t.Fatalf("StartBranch = %+v", b)
			}
			if b.Created {
				if cur := gitT(t, dir, "symbolic-ref", "--short", "HEAD"); cur != tt.branch {
					t.Errorf("HEAD is on %s", cur)
				}
				if !strings.Contains(b.Message(), tt.branch) {
					t.Errorf("message %q", b.Message())
				}
			} else if b.Message() == "" || !strings.Contains(b.Message(), b.Reason) {
				t.Errorf("message %q", b.Message())
			}
		})
	}
}

func TestStartBranchNeverCommits(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	dir := newRepo(t)
	before := gitT(t, dir, "rev-parse", "HEAD")
	if _, err := StartBranch(context.Background(), dir, "do it", time.Now()); err != nil {
		t.Fatal(err)
	}
	if after := gitT(t, dir, "rev-parse", "HEAD"); after != before {
		t.Errorf("HEAD moved from %s to %s", before, after)
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"Fix the login bug":                 "fix-the-login-bug",
		"  ***  ":                           "task",
		"Héllo wörld":                       "h-llo-w-rld",
		"one two three four five six seven": "one-two-three-four-five-six",
		"supercalifragilisticexpialidocious and more words": "supercalifragilisticexpialidocious-and",
		strings.Repeat("a", 60):                             strings.Repeat("a", 40),
		"Refactor internal/checkpoint/run.go":               "refactor-internal-checkpoint-run-go",
	}
	for in, want := range tests {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
