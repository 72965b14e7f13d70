package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func TestSubmoduleTreesFromTheGitFolder(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		// core.worktree, relative to the module's git folder.
		".git/modules/a/config": "[core]\n\tbare = false\n\tworktree = ../../../lib/a\n",
		// A name with a slash and no core.worktree: the name is the path.
		".git/modules/vendor/b/HEAD": "ref: refs/heads/main\n",
		// Nested, quoted, with a comment.
		".git/modules/a/modules/c/config": "[Core]\n\tWorkTree = \"../../../../../lib/a/deps/c\" ; nested\n",
		// Hostile: leaving the workspace, absolute elsewhere, the root itself.
		".git/modules/evil/config":  "[core]\n\tworktree = ../../../../etc\n",
		".git/modules/evil2/config": "[core]\n\tworktree = /etc\n",
		".git/modules/evil3/config": "[core]\n\tworktree = ../../..\n",
		// Not a git folder: ignored (no HEAD or config at any depth).
		".git/modules/empty/x/y": "",
	})
	want := []string{ws + "/lib/a", ws + "/lib/a/deps/c", ws + "/vendor/b"}
	if diff := cmp.Diff(want, submoduleTrees(ws, filepath.Join(ws, ".git"))); diff != "" {
		t.Errorf("submoduleTrees (-want +got):\n%s", diff)
	}
	// The pointer files need not exist for Seatbelt; readOnly(false)
	// names them, with .gitmodules absent.
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
	got := spec.readOnly(false)
	for _, p := range []string{ws + "/lib/a/.git", ws + "/lib/a/deps/c/.git", ws + "/vendor/b/.git"} {
		if !strings.Contains(strings.Join(got, "\n")+"\n", p+"\n") {
			t.Errorf("readOnly(false) = %v lacks %s", got, p)
		}
	}
}

// A linked worktree's or submodule's .git file leads to its git folder.
func TestSubmoduleTreesThroughAGitFile(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws, gd := filepath.Join(dir, "ws"), filepath.Join(dir, "main.git/worktrees/ws")
	writeFiles(t, ws, map[string]string{".git": "gitdir: ../main.git/worktrees/ws\n"})
	writeFiles(t, gd, map[string]string{"modules/m/config": "[core]\n\tworktree = ../../../../../ws/m\n"})
	if got := gitFolder(ws); got != gd {
		t.Fatalf("gitFolder = %q, want %q", got, gd)
	}
	if diff := cmp.Diff([]string{ws + "/m"}, submoduleTrees(ws, gd)); diff != "" {
		t.Errorf("submoduleTrees (-want +got):\n%s", diff)
	}
}

// The walk is bounded however deep the modules nest.
func TestSubmoduleTreesAreBounded(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	gitDir := filepath.Join(ws, ".git")
	p := gitDir
	for range 3 * maxSubmoduleDepth {
		p = filepath.Join(p, "modules", "m")
		writeFiles(t, p, map[string]string{"HEAD": "x\n"})
	}
	got := submoduleTrees(ws, gitDir)
	if len(got) != maxSubmoduleDepth {
		t.Errorf("%d work trees from a chain of %d, want the cap %d", len(got), 3*maxSubmoduleDepth, maxSubmoduleDepth)
	}
}

func TestParseWorktree(t *testing.T) {
	for in, want := range map[string]string{
		"[core]\n\tworktree = ../x\n":                   "../x",
		"[core] worktree = a\n[core]\nworktree = b\n":   "b",
		"[remote \"o\"]\n\tworktree = no\n":             "",
		"[core]\n\tworktree = \"a b\\\\c\" # comment\n": "a b\\c",
		"[core]\n\tworktree = \"unterminated\n":         "",
		"[core]\n\tworktree = x\\\n":                    "",
		"[corex]\n\tworktree = x\n":                     "",
	} {
		got, _ := parseWorktree(strings.NewReader(in))
		if got != want {
			t.Errorf("parseWorktree(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseWorktree: a module's config may be hostile; reading it never
// panics, and a value is found only under a core section.
func FuzzParseWorktree(f *testing.F) {
	for _, seed := range []string{
		"[core]\n\tworktree = ../../../lib/a\n",
		"[Core] WorkTree = \"x\\\"y\" ; c\n",
		"[core\nworktree=\\\n[core]worktree=\"\"\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, config string) {
		v, ok := parseWorktree(strings.NewReader(config))
		if ok && v == "" {
			t.Fatalf("found an empty worktree in %q", config)
		}
		if ok && !strings.Contains(strings.ToLower(config), "core") {
			t.Fatalf("found %q outside a core section in %q", v, config)
		}
	})
}
