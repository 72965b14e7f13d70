package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/workspace"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newWS(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func displays(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Display)
	}
	return out
}

// The chain runs from the repository top down to the workspace root, the
// user's file first, so the nearest file comes last.
func TestLoadChainOrder(t *testing.T) {
	repo := t.TempDir()
	user := t.TempDir()
	write(t, user, map[string]string{"AGENTS.md": "user rule"})
	write(t, repo, map[string]string{
		".git/HEAD":                       "ref: refs/heads/main\n",
		"AGENTS.md":                       "repo rule",
		"svc/CLAUDE.md":                   "svc rule",
		"svc/api/AGENTS.md":               "api rule",
		"svc/api/CLAUDE.md":               "api claude rule",
		"svc/api/x/AGENTS.md":             "below the workspace: not read",
		".github/copilot-instructions.md": "copilot: not read, there is an AGENTS.md",
	})
	ws := newWS(t, filepath.Join(repo, "svc", "api"))
	files := Load(ws, Options{UserDir: user})
	got := strings.Join(displays(files), "|")
	wantTail := "svc/CLAUDE.md|AGENTS.md|CLAUDE.md"
	if len(files) != 5 || !strings.HasSuffix(got, wantTail) || !files[0].User {
		t.Fatalf("files %s, want user, repo AGENTS.md, %s", got, wantTail)
	}
	block := Render(files)
	for _, want := range []string{"user rule", "repo rule", "svc rule", "api rule", "api claude rule"} {
		if !strings.Contains(block, want) {
			t.Errorf("block lacks %q:\n%s", want, block)
		}
	}
	if strings.Index(block, "repo rule") > strings.Index(block, "api rule") {
		t.Error("the nearest file does not come last")
	}
	for _, bad := range []string{"not read"} {
		if strings.Contains(block, bad) {
			t.Errorf("block has %q", bad)
		}
	}
}

// Without AGENTS.md, .github/copilot-instructions.md is read; outside a
// repository only the workspace root is searched.
func TestLoadCopilotFallback(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{".github/copilot-instructions.md": "copilot rule", "CLAUDE.md": "claude rule"})
	files := Load(newWS(t, dir), Options{})
	if got := strings.Join(displays(files), "|"); got != "CLAUDE.md|.github/copilot-instructions.md" {
		t.Fatalf("files %s", got)
	}
	if Render(nil) != "" {
		t.Error("no files: a block anyway")
	}
}

// A link out of the workspace is not followed; binary files are skipped.
func TestLoadRefusesLinksOut(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"secret.md": "OUTSIDE SECRET"})
	write(t, dir, map[string]string{"CLAUDE.md": "bin\x00ary", "docs/agents.md": "inside rule"})
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if files := Load(newWS(t, dir), Options{}); len(files) != 0 {
		t.Fatalf("read %v", displays(files))
	}
	// A link that stays inside is followed.
	os.Remove(filepath.Join(dir, "AGENTS.md"))
	if err := os.Symlink(filepath.Join(dir, "docs", "agents.md"), filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if files := Load(newWS(t, dir), Options{}); len(files) != 1 || files[0].Text != "inside rule" {
		t.Fatalf("inside link: %+v", files)
	}
}

// Above the workspace root, a link must stay in the repository.
func TestLoadAncestorLinkOutOfRepo(t *testing.T) {
	repo, outside := t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"secret.md": "OUTSIDE SECRET"})
	write(t, repo, map[string]string{".git/HEAD": "x", "sub/AGENTS.md": "sub rule"})
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(repo, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	files := Load(newWS(t, filepath.Join(repo, "sub")), Options{})
	if block := Render(files); strings.Contains(block, "OUTSIDE SECRET") || !strings.Contains(block, "sub rule") {
		t.Fatalf("block:\n%s", block)
	}
}

// Each file is capped, and the total too: the farthest files go first.
func TestLoadCaps(t *testing.T) {
	repo := t.TempDir()
	long := strings.Repeat("a line of instructions\n", 100) // 2 300 bytes
	write(t, repo, map[string]string{".git/HEAD": "x", "AGENTS.md": long, "sub/AGENTS.md": long, "sub/CLAUDE.md": "near rule"})
	files := Load(newWS(t, filepath.Join(repo, "sub")), Options{MaxFileBytes: 1000, MaxTotalBytes: 1500})
	if len(files) != 3 {
		t.Fatalf("files %v", displays(files))
	}
	if f := files[2]; f.Text != "near rule" || f.Cut {
		t.Errorf("nearest file %+v", f)
	}
	if f := files[1]; !f.Cut || len(f.Text) > 1000 || !strings.HasSuffix(f.Text, "instructions") {
		t.Errorf("sub/AGENTS.md: cut %v, %d bytes", f.Cut, len(f.Text))
	}
	if f := files[0]; !f.Cut || len(f.Text) > 1500-1000-len("near rule") {
		t.Errorf("repo AGENTS.md: cut %v, %d bytes", f.Cut, len(f.Text))
	}
	total := 0
	for _, f := range files {
		total += len(f.Text)
	}
	if total > 1500 {
		t.Errorf("total %d > 1500", total)
	}
	block := Render(files)
	if !strings.Contains(block, "cut short: the file has 2300 bytes") {
		t.Errorf("cut not said:\n%s", block)
	}
	// No room at all: omitted, and said.
	files = Load(newWS(t, filepath.Join(repo, "sub")), Options{MaxFileBytes: 1000, MaxTotalBytes: 1009})
	if !files[0].Omitted || !strings.Contains(Render(files), "size cap was reached") {
		t.Errorf("omitted: %+v", files[0])
	}
}
