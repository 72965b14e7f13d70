//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNestedBudgetIsSaid: a plan whose search was cut short says so
// (StartPlan.Nested().Cut, which the shell passes on), and says nothing when
// the search was whole; in both cases what was found is protected.
func TestNestedBudgetIsSaid(t *testing.T) {
	base := activeSandbox(t)
	saved := nestBudget
	t.Cleanup(func() { nestBudget = saved })
	for _, mode := range []string{GitSplit, GitMount} {
		b := withGit(base, mode)
		if mode == GitMount && base.Status().Git != GitMount {
			t.Logf("mount namespace mode not tested: %s", base.Status().GitReason)
			continue
		}
		f := newGitFixture(t)
		nestBudget = saved
		if cut := b.PlanStart(f.spec()).Nested().Cut; cut != "" {
			t.Fatalf("%s: the whole search says it was cut: %s", mode, cut)
		}
		nestBudget.dirs = 2 // the top level, and node_modules as it is met there
		cut := b.PlanStart(f.spec()).Nested().Cut
		if !strings.Contains(cut, f.ws) || !strings.Contains(cut, "2 folders") || !strings.Contains(cut, "not protected") {
			t.Errorf("%s: cut = %q, want the place, the bound and what it means", mode, cut)
		}
		// node_modules is read as the top level is, so its package's
		// clone is found within that bound and stays protected.
		if out, err := runIn(t, b, f.spec(), f.ws, gitAttacks["plant a hook in a package's clone"]); err == nil {
			t.Errorf("%s: a repository found before the cut was not protected:\n%s", mode, out)
		}
		if _, err := os.Lstat(filepath.Join(f.ws, "node_modules/pkg/.git/hooks/pre-commit")); err == nil {
			t.Errorf("%s: the hook was planted", mode)
		}
	}
}

// BenchmarkFindNested is what the search costs each time a
// workspace-write shell starts, on a workspace shaped like a big one:
// the folders and file names of Go's source tree (GOROOT/src, empty
// files), a nested clone, and a node_modules of 1500 packages with
// their own node_modules.
func BenchmarkFindNested(b *testing.B) {
	src := filepath.Join(goroot(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree at %s", src)
	}
	ws := filepath.Join(b.TempDir(), "ws")
	must(b, mirrorTree(src, filepath.Join(ws, "src")))
	must(b, os.MkdirAll(filepath.Join(ws, "third_party/lib/.git"), 0o755))
	for i := range 1500 {
		pkg := filepath.Join(ws, "node_modules", "pkg-"+strconv.Itoa(i))
		must(b, os.MkdirAll(filepath.Join(pkg, "lib", "node_modules", "dep", "dist"), 0o755))
		for _, f := range []string{"package.json", "index.js", "README.md", "lib/a.js", "lib/b.js"} {
			must(b, os.WriteFile(filepath.Join(pkg, f), nil, 0o644))
		}
	}
	// The whole walk, however slow the machine: the budget is what this
	// measures against.
	saved := nestBudget
	b.Cleanup(func() { nestBudget = saved })
	nestBudget.time = time.Minute
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		got := findNested([]string{ws})
		if got.Cut != "" || !slices.Contains(got.Git, filepath.Join(ws, "third_party/lib/.git")) {
			b.Fatalf("search: %+v", got)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// TestNestedEverydayCommands: what a nested repository costs everyday
// work under each mechanism. With mounts only its .git is read-only; with
// per-entry rules the folders from the workspace down to it cannot get
// new entries either (they are split), which is refused and explained,
// while files below them still change.
func TestNestedEverydayCommands(t *testing.T) {
	base := activeSandbox(t)
	modes := map[string]*Sandbox{GitSplit: withGit(base, GitSplit)}
	if base.Status().Git == GitMount {
		modes[GitMount] = base
	}
	for how, b := range modes {
		for _, c := range []struct {
			script       string
			mount, split bool
		}{
			{"echo x >> third_party/lib/.git/HEAD", false, false},
			{"touch third_party/new", true, false},
			{"touch third_party/lib/new.c", true, false},
			{"mkdir -p third_party/lib/.git/../src/a && echo x > third_party/lib/src/a/f", true, false},
			{"mkdir -p docs/a && echo x > docs/a/f && rm -r docs/a", true, true},
			{"echo x >> third_party/lib/.git/../README", true, true},
		} {
			t.Run(how+"/"+c.script, func(t *testing.T) {
				f := newGitFixture(t)
				must(t, os.WriteFile(filepath.Join(f.ws, "third_party/lib/README"), nil, 0o644))
				must(t, os.Mkdir(filepath.Join(f.ws, "docs"), 0o755))
				out, err := runIn(t, b, f.spec(), f.ws, c.script)
				want := c.mount
				if how == GitSplit {
					want = c.split
				}
				switch {
				case want && err != nil:
					t.Fatalf("failed: %v\n%s", err, out)
				case !want && err == nil:
					t.Fatalf("worked, though %s should refuse it:\n%s", how, out)
				case !want && !strings.Contains(Note(WorkspaceWrite, b.Explain(f.spec(), f.ws, "", out)), ".git"):
					t.Fatalf("the refusal is not explained as .git's: %+v\n%s", b.Explain(f.spec(), f.ws, "", out), out)
				}
			})
		}
	}
}

// TestGitlinkFolderCannotBePlanted: a submodule known only from the
// index (no .gitmodules entry, never cloned) cannot get a planted .git,
// under either mechanism; git status in the superproject would run git
// in it.
func TestGitlinkFolderCannotBePlanted(t *testing.T) {
	base := activeSandbox(t)
	modes := map[string]*Sandbox{GitSplit: withGit(base, GitSplit)}
	if base.Status().Git == GitMount {
		modes[GitMount] = base
	}
	for how, b := range modes {
		ws := gitIndexRepo(t, "2", "sha1")
		must(t, os.MkdirAll(filepath.Join(ws, "lib/sub"), 0o755))
		spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
		if out, err := runIn(t, b, spec, ws, "mkdir lib/sub/.git && echo '[core] fsmonitor = x' > lib/sub/.git/config"); err == nil {
			t.Errorf("%s: a .git was planted in the gitlink folder:\n%s", how, out)
		}
		if _, err := os.Lstat(filepath.Join(ws, "lib/sub/.git")); err == nil {
			t.Errorf("%s: lib/sub/.git exists", how)
		}
	}
}

// TestWrapDropsACallersSearch: Wrap's helper does not take a caller's
// Spec.Nested (an empty one would protect nothing nested): it searches
// itself, and the clone stays read-only.
func TestWrapDropsACallersSearch(t *testing.T) {
	b := activeSandbox(t)
	f := newGitFixture(t)
	spec := f.spec()
	spec.Nested = &Nested{}
	argv, err := b.Wrap(spec, []string{"bash", "-c", gitAttacks["plant a hook in a nested clone"]})
	must(t, err)
	if strings.Contains(strings.Join(argv, " "), `"nested"`) {
		t.Errorf("the caller's search reached the helper: %v", argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = f.ws
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("the hook was planted through Wrap:\n%s", out)
	}
	f.check(t, "Wrap")
}
