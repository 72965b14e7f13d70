package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadOnlyFindsGitMetadata(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws, cache, worktree := filepath.Join(dir, "ws"), filepath.Join(dir, "cache"), filepath.Join(dir, "wt")
	for _, d := range []string{ws + "/.git", ws + "/lib/a", ws + "/lib/b", cache, worktree} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(ws, "lib/a/.git"), []byte("gitdir: ../../.git/modules/a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o644))
	// Submodule paths are workspace content: one leaving the workspace
	// and one without a .git are skipped.
	must(t, os.WriteFile(filepath.Join(ws, ".gitmodules"), []byte(
		"[submodule \"a\"]\n\tpath = lib/a\n[submodule \"b\"]\n\tpath = \"lib/b\"\n[submodule \"x\"]\n\tpath = ../../etc\n\tpath = /etc\n"), 0o644))
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws, cache, worktree, filepath.Join(dir, "missing")}}

	// lib/b, named by .gitmodules and empty (not checked out), is kept
	// read-only itself, no .git can be planted in it: there is no index
	// to say which paths are submodules (index_test.go has the case with
	// one).
	want := []string{ws + "/.git", ws + "/lib/a/.git", ws + "/lib/b", worktree + "/.git"}
	if diff := cmp.Diff(want, spec.readOnly(true)); diff != "" {
		t.Errorf("existing read-only paths (-want +got):\n%s", diff)
	}
	all := spec.readOnly(false)
	for _, p := range []string{ws + "/.git", ws + "/lib/a/.git", worktree + "/.git", cache + "/.git", ws + "/lib/b/.git", dir + "/missing/.git"} {
		if !slices.Contains(all, p) {
			t.Errorf("readOnly(false) = %v lacks %s", all, p)
		}
	}
	if slices.ContainsFunc(all, func(p string) bool { return !under(p, dir) }) {
		t.Errorf("readOnly(false) = %v leaves the writable places", all)
	}
	spec.Policy = ReadOnly
	if got := spec.readOnly(false); got != nil {
		t.Errorf("read-only policy: %v (it writes nothing anyway)", got)
	}
}

// TestPlanSplitsTheFolderHoldingGit checks the per-entry fallback: .git
// is readable, never writable; everything else in the workspace is.
func TestPlanSplitsTheFolderHoldingGit(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	must(t, os.MkdirAll(filepath.Join(ws, ".git/hooks"), 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module x\n"), 0o644))
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
	gs := Plan(spec)
	for path, want := range map[string]Access{ws: List, ws + "/.git": Read, ws + "/src": Write, ws + "/go.mod": Write} {
		if g, ok := grantOf(gs, path); !ok || g.Access != want {
			t.Errorf("%s: grant %+v (found %v), want access %d", path, g, ok, want)
		}
	}
	for _, g := range gs {
		if g.Access == Write && under(filepath.Join(ws, ".git"), g.Path) {
			t.Errorf("grant %+v makes .git writable", g)
		}
	}
	spec.Mount = true // the helper's mounts keep .git read-only instead
	if g, ok := grantOf(Plan(spec), ws); !ok || g.Access != Write {
		t.Errorf("with mounts, workspace grant = %+v, %v; want it writable whole", g, ok)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzSubmodulePaths: .gitmodules is workspace content; whatever it
// holds, the paths taken from it stay inside the workspace.
func FuzzSubmodulePaths(f *testing.F) {
	for _, seed := range []string{
		"[submodule \"a\"]\n\tpath = lib/a\n\turl = ./a\n",
		"path = ../../etc\npath=/etc\npath = \"x y\"\n",
		"path = a/../../b\npath =\npath = .\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		file := filepath.Join(t.TempDir(), ".gitmodules")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range submodulePaths(file) {
			if !filepath.IsLocal(p) {
				t.Fatalf("submodule path %q leaves the workspace", p)
			}
		}
	})
}

// FuzzExplain: a command's output is untrusted; reading it never panics
// and reports at most 5 refusals, each with a known access.
func FuzzExplain(f *testing.F) {
	for _, seed := range []string{
		"mv: cannot move '.git' to '.git-old': Device or resource busy\n",
		"bash: line 1: c: Permission denied\nfatal: Unable to create '/ws/.git/index.lock': Read-only file system\n",
		"cat: /home/me/.ssh/id_rsa: Permission denied\nbash: connect: Permission denied\n",
		"‘x’: Operation not permitted ' '' : EACCES /\n",
		"fatal: Unable to create '/ws/My Project/.git/index.lock': Permission denied '/a b' ‘/c d’\n",
		"bash: line 3: /ws/My Project/out: Read-only file system: Permission denied\n",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "ws", GitDir), 0o755); err != nil {
		f.Fatal(err)
	}
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{filepath.Join(dir, "ws")}, DenyRead: []string{filepath.Join(dir, "secret")}}
	f.Fuzz(func(t *testing.T, output string) {
		got := Explain(spec, filepath.Join(dir, "ws"), dir, output)
		if len(got) > 5 {
			t.Fatalf("%d refusals", len(got))
		}
		for _, r := range got {
			if !slices.Contains([]string{"write", "read", "network", "git", "git-folder"}, r.Access) {
				t.Fatalf("unknown access %+v", r)
			}
		}
	})
}
