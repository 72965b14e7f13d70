package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nestedTree makes a workspace holding repositories of every kind the
// search must find, and some it must not look into.
func nestedTree(t testing.TB) (dir, ws string) {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	ws = filepath.Join(dir, "ws")
	for _, d := range []string{
		".git/hooks",
		"third_party/lib/.git/hooks",           // a clone
		"a/b/c/d/deep/.git",                    // deeper
		"tools/wt",                             // a linked worktree (.git file below)
		"vendor/bare.git/objects",              // a bare repository
		"vendor/bare.git/refs/heads",           //
		"node_modules/pkg/.git",                // a package a person cloned in
		"node_modules/@scope/p/.git",           //
		"node_modules/pkg/node_modules/x/.git", // npm's own layout: not searched
		"third_party/lib/.git/modules/m",       // a submodule of the clone (its work tree below)
		"third_party/lib/m",                    //
		"upper/.GIT",                           // another case (a case-insensitive file system)
		"third_party/lib/.git/inner/.git",      // inside a .git: not entered
		"outside/repo/.git",                    // reached only by a link
	} {
		must(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
	}
	must(t, os.Rename(filepath.Join(ws, "outside"), filepath.Join(dir, "outside")))
	must(t, os.Symlink(filepath.Join(dir, "outside"), filepath.Join(ws, "link")))
	for name, content := range map[string]string{
		"tools/wt/.git":                          "gitdir: ../../.git/worktrees/wt\n",
		"vendor/bare.git/HEAD":                   "ref: refs/heads/main\n",
		"third_party/lib/.git/modules/m/config":  "[core]\n\tworktree = ../../../m\n",
		"third_party/lib/m/.git":                 "gitdir: ../.git/modules/m\n",
		"src/HEAD":                               "a file named HEAD alone does not make a git folder\n",
		"third_party/lib/.git/HEAD":              "ref: refs/heads/main\n",
		"a/b/c/d/deep/.git/HEAD":                 "ref: refs/heads/main\n",
		"node_modules/pkg/node_modules/x/.git/x": "",
		// A worktree whose git folder, and its common folder, lie in
		// the workspace outside any .git.
		"tools/wt2/.git":     "gitdir: ../../meta/wt2\n",
		"meta/wt2/HEAD":      "ref: refs/heads/x\n",
		"meta/wt2/commondir": "../common\n",
		"meta/common/config": "[core]\n",
	} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644))
	}
	return dir, ws
}

func TestFindNested(t *testing.T) {
	_, ws := nestedTree(t)
	got := findNested([]string{ws})
	want := []string{
		"a/b/c/d/deep/.git", "node_modules/@scope/p/.git", "node_modules/pkg/.git", "third_party/lib/.git",
		"third_party/lib/m/.git", "tools/wt/.git", "tools/wt2/.git", "upper/.GIT", "vendor/bare.git",
	}
	var rel []string
	for _, g := range got.Git {
		r, _ := filepath.Rel(ws, g)
		rel = append(rel, r)
	}
	slices.Sort(rel)
	if diff := cmp.Diff(want, rel); diff != "" || got.Cut != "" {
		t.Errorf("found (-want +got):\n%s\ncut: %q", diff, got.Cut)
	}
	// readOnly keeps them all, with the clone's submodule, resolved.
	ro := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}.readOnly(true)
	for _, r := range append(want, ".git", "meta/wt2", "meta/common") {
		if !slices.Contains(ro, filepath.Join(ws, r)) {
			t.Errorf("readOnly(true) = %v lacks %s", ro, r)
		}
	}
	// A search passed in the spec is used as it is (the helper's case),
	// and only what lies inside a writable place counts.
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}, Nested: &Nested{Git: []string{ws + "/tools/wt/.git", "/etc/.git", ws}}}
	if got := spec.readOnly(true); !slices.Equal(got, []string{ws + "/.git", ws + "/tools/wt/.git"}) {
		t.Errorf("with Spec.Nested: %v", got)
	}
}

// TestNestedSkipsCaches: the build caches (Spec.Caches) are not
// searched; the workspace beside them is, and a spec planned for a
// command carries the answer (searched replaces a caller's).
func TestNestedSkipsCaches(t *testing.T) {
	dir, ws := nestedTree(t)
	cache := filepath.Join(dir, "cache")
	must(t, os.MkdirAll(filepath.Join(cache, "x/.git"), 0o755))
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws, cache}, Caches: []string{cache},
		Nested: &Nested{Git: []string{filepath.Join(cache, "y/.git")}}}
	got := spec.searched().Nested
	if slices.ContainsFunc(got.Git, func(g string) bool { return under(g, cache) }) {
		t.Errorf("a cache was searched, or the caller's answer kept: %v", got.Git)
	}
	if !slices.Contains(got.Git, filepath.Join(ws, "third_party/lib/.git")) {
		t.Errorf("the workspace was not searched: %v", got.Git)
	}
	spec.Caches = nil
	if got := spec.searched().Nested; !slices.Contains(got.Git, filepath.Join(cache, "x/.git")) {
		t.Errorf("a writable place that is not a cache was not searched: %v", got.Git)
	}
}

// TestFindNestedSaysUnreadable: a folder the search cannot list (a
// command running as the person could open it up again) is said.
func TestFindNestedSaysUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	_, ws := nestedTree(t)
	locked := filepath.Join(ws, "third_party")
	must(t, os.Chmod(locked, 0))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if got := findNested([]string{ws}); !strings.Contains(got.Cut, "could not list "+locked) {
		t.Errorf("cut = %q", got.Cut)
	}
}

// TestFindNestedBudget: when a limit is reached the search says so, and
// what it says names the limit; a depth limit leaves the rest searched.
func TestFindNestedBudget(t *testing.T) {
	_, ws := nestedTree(t)
	saved := nestBudget
	t.Cleanup(func() { nestBudget = saved })
	for _, c := range []struct {
		name  string
		lim   func(*nestLimits)
		cut   string
		found string // still found
		lost  string // not found
	}{
		{"folders", func(l *nestLimits) { l.dirs = 4 }, "4 folders", "", "a/b/c/d/deep/.git"},
		{"entries", func(l *nestLimits) { l.entries = 10 }, "10 entries", "", "a/b/c/d/deep/.git"},
		{"repositories", func(l *nestLimits) { l.repos = 2 }, "2 repositories", "", "a/b/c/d/deep/.git"},
		{"time", func(l *nestLimits) { l.time = -1 }, "time limit", "", "third_party/lib/.git"},
		{"depth", func(l *nestLimits) { l.depth = 3 }, "3 folder levels", "node_modules/pkg/.git", "a/b/c/d/deep/.git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nestBudget = saved
			c.lim(&nestBudget)
			got := findNested([]string{ws})
			if !strings.Contains(got.Cut, c.cut) || !strings.Contains(got.Cut, ws) || !strings.Contains(got.Cut, "not protected") {
				t.Errorf("cut = %q, want it to name %q, %s and say what is not protected", got.Cut, c.cut, ws)
			}
			if c.found != "" && !slices.Contains(got.Git, filepath.Join(ws, c.found)) {
				t.Errorf("%s not found: %v", c.found, got.Git)
			}
			if slices.Contains(got.Git, filepath.Join(ws, c.lost)) {
				t.Errorf("%s found past the limit: %v", c.lost, got.Git)
			}
		})
	}
}

func TestBareGitFolder(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		files, dirs []string
		want        bool
	}{
		{[]string{"HEAD"}, []string{"objects", "refs"}, true},
		{[]string{"HEAD"}, []string{"objects"}, false},
		{nil, []string{"HEAD", "objects", "refs"}, false}, // HEAD must be a file
		{[]string{"HEAD", "objects", "refs"}, nil, false},
	} {
		d, err := os.MkdirTemp(dir, "")
		must(t, err)
		for _, f := range c.files {
			must(t, os.WriteFile(filepath.Join(d, f), nil, 0o644))
		}
		for _, f := range c.dirs {
			must(t, os.Mkdir(filepath.Join(d, f), 0o755))
		}
		entries, err := os.ReadDir(d)
		must(t, err)
		if got := bareGitFolder(entries); got != c.want {
			t.Errorf("files %v dirs %v: %v, want %v", c.files, c.dirs, got, c.want)
		}
	}
}

func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	return "/usr/local/go"
}

// mirrorTree makes the folders of src under dst with empty files of the
// same names (the search reads names, never contents).
func mirrorTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return os.WriteFile(target, nil, 0o644)
	})
}

// FuzzGitPointers: a nested .git file and a commondir are workspace
// content; whatever they hold, what readOnly takes from them stays inside
// the writable place, and nothing panics.
func FuzzGitPointers(f *testing.F) {
	f.Add("gitdir: ../../meta/wt\n", "../common\n")
	f.Add("gitdir: /etc\n", "/\n")
	f.Add("gitdir:\n", "../../../..\n")
	f.Add("", "\x00")
	dir, _ := filepath.EvalSymlinks(f.TempDir())
	ws := filepath.Join(dir, "ws")
	must(f, os.MkdirAll(filepath.Join(ws, "tools/wt"), 0o755))
	must(f, os.MkdirAll(filepath.Join(ws, "meta/wt"), 0o755))
	must(f, os.MkdirAll(filepath.Join(ws, "meta/common"), 0o755))
	f.Fuzz(func(t *testing.T, pointer, common string) {
		must(t, os.WriteFile(filepath.Join(ws, "tools/wt/.git"), []byte(pointer), 0o644))
		must(t, os.WriteFile(filepath.Join(ws, "meta/wt/commondir"), []byte(common), 0o644))
		for _, p := range (Spec{Policy: WorkspaceWrite, Writable: []string{ws}}).readOnly(true) {
			if !under(p, ws) {
				t.Fatalf("pointer %q, commondir %q: %s is outside the workspace", pointer, common, p)
			}
		}
	})
}

// TestFindNestedProbeBudget: the packages of node_modules are probed
// within the budget too, not all of them once their folder is listed.
func TestFindNestedProbeBudget(t *testing.T) {
	ws := t.TempDir()
	for i := range 50 {
		must(t, os.MkdirAll(filepath.Join(ws, "node_modules", fmt.Sprintf("p%02d", i), GitDir), 0o755))
	}
	saved := nestBudget
	t.Cleanup(func() { nestBudget = saved })
	nestBudget.entries = 60 // the top level (1), node_modules' listing (50), then 9 probes
	got := findNested([]string{ws})
	if !strings.Contains(got.Cut, "60 entries") || len(got.Git) >= 50 {
		t.Errorf("the probes went past the budget: found %d, cut %q", len(got.Git), got.Cut)
	}
}
