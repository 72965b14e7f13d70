package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// collect walks start and returns the entries' display paths, sorted, with
// a trailing "/" on directories.
func collect(t *testing.T, w *Workspace, start string, opts WalkOptions) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := w.Walk(context.Background(), start, opts, func(e Entry) error {
		s := e.Rel
		if e.IsDir {
			s += "/"
		}
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%q): %v", start, err)
	}
	slices.Sort(got)
	return got
}

func TestWalkGitignore(t *testing.T) {
	base := tempDir(t)
	proj := filepath.Join(base, "proj")
	tree(t, base,
		"global-ignore",
		"proj/.git/HEAD",
		"proj/.git/info/exclude",
		"proj/.gitignore",
		"proj/main.go",
		"proj/debug.log",
		"proj/keep.log",
		"proj/top.tmp",
		"proj/notes.swp",
		"proj/build/out.bin",
		"proj/vendor/x.go",
		"proj/sub/.gitignore",
		"proj/sub/a.go",
		"proj/sub/other.tmp",
		"proj/sub/important.tmp",
		"proj/sub/deeper/z.tmp",
		"proj/sub/deeper/generated.go",
		"proj/sub/deeper/.git", // a submodule's .git file is skipped too
		"proj/docs/build/page.md",
	)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("global-ignore", "*.swp\n")
	write("proj/.git/info/exclude", "# local only\nvendor/\n")
	write("proj/.gitignore", "\ufeff*.log\r\n!keep.log\r\n/build/\n*.tmp\n\n# comment\n")
	write("proj/sub/.gitignore", "!important.tmp\ndeeper/generated.go\n")

	w := newWS(t, []string{proj}, WithGlobalExcludesFile(filepath.Join(base, "global-ignore")))
	got := collect(t, w, ".", WalkOptions{})
	want := []string{
		".gitignore",
		"docs/", "docs/build/", "docs/build/page.md", // "/build/" is anchored to the top
		"keep.log", // negated
		"main.go",
		"sub/", "sub/.gitignore", "sub/a.go", "sub/deeper/", "sub/important.tmp", // re-included below
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("walk with ignore files (-want +got):\n%s", d)
	}

	all := collect(t, w, ".", WalkOptions{NoIgnore: true})
	for _, p := range []string{"debug.log", "build/out.bin", "vendor/x.go", "notes.swp", "sub/deeper/generated.go"} {
		if !slices.Contains(all, p) {
			t.Errorf("NoIgnore walk misses %s", p)
		}
	}
	for _, p := range all {
		if p == ".git/" || filepath.Base(p) == ".git" {
			t.Errorf("NoIgnore walk lists %s", p)
		}
	}

	// Starting inside an ignored directory is explicit: it is walked.
	if got := collect(t, w, "build", WalkOptions{}); !slices.Equal(got, []string{"build/out.bin"}) {
		t.Errorf("walk of ignored start = %v", got)
	}
	// Starting in a subdirectory still applies the ignore files above it.
	if got := collect(t, w, "sub", WalkOptions{}); !slices.Equal(got, []string{"sub/.gitignore", "sub/a.go", "sub/deeper/", "sub/important.tmp"}) {
		t.Errorf("walk of sub = %v", got)
	}
	// A file start reports the file alone.
	if got := collect(t, w, "main.go", WalkOptions{}); !slices.Equal(got, []string{"main.go"}) {
		t.Errorf("walk of a file = %v", got)
	}
	if got := collect(t, w, ".", WalkOptions{MaxDepth: 1}); slices.Contains(got, "sub/a.go") || !slices.Contains(got, "sub/") {
		t.Errorf("MaxDepth 1 = %v", got)
	}
}

func TestWalkSymlinks(t *testing.T) {
	base := tempDir(t)
	proj := filepath.Join(base, "proj")
	tree(t, base,
		"outside/secret.txt",
		"proj/src/main.go",
		"proj/shared/util.go",
		"proj/shared/back -> ../src", // into a tree already walked from "src"? see cases
	)
	tree(t, proj,
		"src/shared -> ../shared",  // inside, outside the walk of src: followed once
		"src/again -> ../shared",   // second link to the same tree: not followed again
		"src/out -> ../../outside", // out of the workspace: not reported
		"src/secret -> ../../outside/secret.txt",
		"src/loop -> ..",           // holds the tree walked: not followed
		"src/self -> self",         // a loop: not reported
		"src/dangling -> nothere",  // dangling: not reported
		"src/file-link -> main.go", // a file link inside: reported
	)
	w := newWS(t, []string{proj})
	got := collect(t, w, "src", WalkOptions{})
	// "shared" and "again" point at the same directory; whichever is met
	// first is followed (the walk is concurrent), the other only listed.
	var followed string
	for _, l := range []string{"src/shared", "src/again"} {
		if slices.Contains(got, l+"/util.go") {
			if followed != "" {
				t.Errorf("both links to shared were followed: %v", got)
			}
			followed = l
		}
	}
	if followed == "" {
		t.Fatalf("no link to shared was followed: %v", got)
	}
	want := []string{
		"src/again/", "src/file-link", "src/loop/", "src/main.go", "src/shared/",
		followed + "/back/", followed + "/util.go", // back -> src holds the start: listed, not followed
	}
	slices.Sort(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("walk (-want +got):\n%s", d)
	}
	if got := collect(t, w, "src", WalkOptions{NoFollow: true}); slices.ContainsFunc(got, func(s string) bool { return filepath.Base(s) == "util.go" }) {
		t.Errorf("NoFollow walk followed a link: %v", got)
	}
	// From the root, shared is walked itself, so neither link is followed.
	for _, p := range collect(t, w, ".", WalkOptions{}) {
		if strings.HasPrefix(p, "src/shared/") && p != "src/shared/" || strings.HasPrefix(p, "src/again/") && p != "src/again/" {
			t.Errorf("walk from root followed a link into a tree it walks anyway: %s", p)
		}
	}
}

func TestWalkStops(t *testing.T) {
	base := tempDir(t)
	var spec []string
	for _, d := range []string{"a", "b", "c", "d"} {
		for _, f := range []string{"1", "2", "3", "4", "5"} {
			spec = append(spec, d+"/"+f+".txt")
		}
	}
	tree(t, base, spec...)
	w := newWS(t, []string{base})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Walk(ctx, ".", WalkOptions{}, func(Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v, want context.Canceled", err)
	}

	var mu sync.Mutex
	n := 0
	err := w.Walk(context.Background(), ".", WalkOptions{Workers: 1}, func(e Entry) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 3 {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("SkipAll: err %v after %d entries, want nil after 3", err, n)
	}

	var depthErr error
	_ = w.Walk(context.Background(), ".", WalkOptions{}, func(e Entry) error {
		want := strings.Count(e.InRoot, "/") + 1
		if e.Depth != want {
			mu.Lock()
			depthErr = fmt.Errorf("%s: Depth %d, want %d", e.InRoot, e.Depth, want)
			mu.Unlock()
		}
		return nil
	})
	if depthErr != nil {
		t.Error(depthErr)
	}

	boom := errors.New("boom")
	if err := w.Walk(context.Background(), ".", WalkOptions{}, func(Entry) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("callback error: %v, want boom", err)
	}

	got := collect(t, w, ".", WalkOptions{})
	var skipped []string
	mu2 := sync.Mutex{}
	_ = w.Walk(context.Background(), ".", WalkOptions{}, func(e Entry) error {
		mu2.Lock()
		defer mu2.Unlock()
		skipped = append(skipped, e.Rel)
		if e.IsDir && e.Rel == "b" {
			return fs.SkipDir
		}
		return nil
	})
	if len(skipped) != len(got)-5 || slices.Contains(skipped, "b/1.txt") {
		t.Errorf("SkipDir on b: %d entries %v, want %d without b's files", len(skipped), skipped, len(got)-5)
	}

	if err := w.Walk(context.Background(), "../", WalkOptions{}, func(Entry) error { return nil }); classify(t, err) != outside {
		t.Errorf("walk outside: %v, want outside", err)
	}
}

func TestIgnorerMatch(t *testing.T) {
	base := tempDir(t)
	repo := filepath.Join(base, "repo")
	tree(t, base, "repo/.git/", "repo/.gitignore", "repo/pkg/.gitignore", "repo/pkg/x.go")
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("node_modules/\n*.o\n!keep.o\npkg/gen/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "pkg/.gitignore"), []byte("*.pb.go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		root  string // relative to repo
		rel   string
		isDir bool
		want  bool
	}{
		{"", "node_modules", true, true},
		{"", "node_modules", false, false},             // dir-only pattern, a file of that name
		{"", "node_modules/lib/index.js", false, true}, // below an ignored directory
		{"", "a/b/c.o", false, true},
		{"", "a/keep.o", false, false},
		{"", "pkg/x.go", false, false},
		{"", "pkg/api.pb.go", false, true}, // nested .gitignore
		{"", "api.pb.go", false, false},    // does not apply above its directory
		{"", "pkg/gen/x.go", false, true},
		{"", ".git/config", false, true},
		{"", "x/.git", true, true},
		{"", ".", true, false},
		{"", "../outside", false, false},
		// An Ignorer rooted below the repository top applies the top's
		// rules with paths relative to its own root.
		{"pkg", "api.pb.go", false, true},
		{"pkg", "gen/x.go", false, true},
		{"pkg", "x.go", false, false},
		{"pkg", "y.o", false, true},
	}
	for _, tc := range cases {
		ig, err := NewIgnorer(filepath.Join(repo, tc.root), IgnoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ig.Match(tc.rel, tc.isDir); got != tc.want {
			t.Errorf("Ignorer(%q).Match(%q, %v) = %v, want %v", tc.root, tc.rel, tc.isDir, got, tc.want)
		}
	}
}

func TestGlobalExcludesFile(t *testing.T) {
	home := tempDir(t)
	xdg := filepath.Join(home, "xdg")
	if got := GlobalExcludesFile(home, xdg); got != "" {
		t.Errorf("nothing configured: %q", got)
	}
	tree(t, xdg, "git/ignore")
	if got, want := GlobalExcludesFile(home, xdg), filepath.Join(xdg, "git/ignore"); got != want {
		t.Errorf("XDG default: %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/.gitignore_global\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := GlobalExcludesFile(home, xdg), filepath.Join(home, ".gitignore_global"); got != want {
		t.Errorf("core.excludesFile: %q, want %q", got, want)
	}
}

func TestIgnorerWorktreeGitFile(t *testing.T) {
	base := tempDir(t)
	tree(t, base, "main/.git/info/exclude", "main/.git/worktrees/wt/commondir", "wt/x.secret", "wt/x.go")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(base, "main/.git/info/exclude"), []byte("*.secret\n"), 0o644))
	must(os.WriteFile(filepath.Join(base, "main/.git/worktrees/wt/commondir"), []byte("../..\n"), 0o644))
	must(os.WriteFile(filepath.Join(base, "wt/.git"), []byte("gitdir: "+filepath.Join(base, "main/.git/worktrees/wt")+"\n"), 0o644))
	ig, err := NewIgnorer(filepath.Join(base, "wt"), IgnoreOptions{})
	must(err)
	if !ig.Match("x.secret", false) || ig.Match("x.go", false) {
		t.Error("worktree does not use the common info/exclude")
	}
}
