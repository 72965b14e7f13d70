package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExplainKnowsTheGitMode: only a path inside a protected .git is a
// .git refusal (with mounts, only when the message says read-only), and
// only per-entry rules produce git-folder refusals, for entries created,
// moved or removed beside .git, never for a script without +x.
func TestExplainKnowsTheGitMode(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	must(t, os.MkdirAll(filepath.Join(ws, GitDir), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "build.sh"), []byte("echo hi\n"), 0o644))
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
	cases := []struct {
		name, mode, output string
		want               []Refusal
	}{
		{"script without +x, mounts", GitMount, "bash: line 1: ./build.sh: Permission denied\n", nil},
		{"script without +x, per-entry", GitSplit, "bash: line 1: ./build.sh: Permission denied\n", nil},
		{"script without +x, seatbelt", GitSeatbelt, "bash: ./build.sh: Permission denied\n", nil},
		{"new entry, per-entry", GitSplit, "touch: cannot touch 'new.txt': Permission denied\n",
			[]Refusal{{Access: "git-folder", Path: ws + "/new.txt"}}},
		{"new entry, mounts", GitMount, "touch: cannot touch 'new.txt': Permission denied\n", nil},
		{"removing an entry, per-entry", GitSplit, "rm: cannot remove 'build.sh': Permission denied\n",
			[]Refusal{{Access: "git-folder", Path: ws + "/build.sh"}}},
		{"write into .git, mounts", GitMount, "fatal: Unable to create '" + ws + "/.git/index.lock': Read-only file system\n",
			[]Refusal{{Access: "git", Path: ws + "/.git/index.lock"}}},
		{"hook without +x, mounts", GitMount, "error: cannot run .git/hooks/pre-commit: Permission denied\n", nil},
		{"write into .git, per-entry", GitSplit, "fatal: Unable to create '" + ws + "/.git/index.lock': Permission denied\n",
			[]Refusal{{Access: "git", Path: ws + "/.git/index.lock"}}},
		{"renaming .git, mounts", GitMount, "mv: cannot move '.git' to 'x': Device or resource busy\n",
			[]Refusal{{Access: "git", Path: ws + "/.git"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := explain(spec, c.mode, ws, dir, c.output)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("explain (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSandboxPlanKnowsTheGitMode: Sandbox.PlanStart grants a workspace whole
// where mounts keep .git read-only, and splits it otherwise.
func TestSandboxPlanKnowsTheGitMode(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	must(t, os.MkdirAll(filepath.Join(ws, GitDir), 0o755))
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
	for mode, want := range map[string]Access{GitMount: Write, GitSplit: List} {
		b := &Sandbox{status: Status{Mechanism: "landlock", ABI: 7}, git: &gitGuard{how: mode}}
		b.git.once.Do(func() {})
		if g, ok := grantOf(b.PlanStart(spec).Grants(), ws); !ok || g.Access != want {
			t.Errorf("%s: workspace grant %+v (found %v), want access %d", mode, g, ok, want)
		}
	}
}

// TestExplainQuotedPathWithSpace: a quoted path with a space in it (a
// workspace in "My Project") is read whole, not cut at the space (it was
// explained as a write of the folder before the space).
func TestExplainQuotedPathWithSpace(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "My Project")
	must(t, os.MkdirAll(filepath.Join(ws, GitDir), 0o755))
	outside := filepath.Join(dir, "other place", "x.txt")
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
	cases := []struct {
		name, mode, output string
		want               []Refusal
	}{
		{"write into .git, per-entry", GitSplit, "fatal: Unable to create '" + ws + "/.git/index.lock': Permission denied\n",
			[]Refusal{{Access: "git", Path: ws + "/.git/index.lock"}}},
		{"write into .git, mounts", GitMount, "fatal: Unable to create '" + ws + "/.git/index.lock': Read-only file system\n",
			[]Refusal{{Access: "git", Path: ws + "/.git/index.lock"}}},
		{"write outside", GitSplit, "touch: cannot touch '" + outside + "': Permission denied\n",
			[]Refusal{{Access: "write", Path: outside}}},
		{"bash's redirection", GitSplit, "bash: line 1: " + outside + ": Permission denied\n",
			[]Refusal{{Access: "write", Path: outside}}},
		{"two on a line", GitSplit, "cp: cannot create regular file '" + outside + "' from 'a b': Permission denied\n",
			[]Refusal{{Access: "write", Path: outside}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := explain(spec, c.mode, ws, dir, c.output)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("explain (-want +got):\n%s", diff)
			}
		})
	}
}
