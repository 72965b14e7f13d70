package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

type outcome int

const (
	ok outcome = iota
	outside
	notFound
	invalid
	loop
	isDir
	notDir
)

func (o outcome) String() string {
	return [...]string{"ok", "outside", "notFound", "invalid", "loop", "isDir", "notDir"}[o]
}

// classify maps an error to the outcome it represents, failing the test
// on an error of no known kind.
func classify(t *testing.T, err error) outcome {
	t.Helper()
	var oe *OutsideError
	var nf *NotFoundError
	switch {
	case err == nil:
		return ok
	case errors.As(err, &oe):
		return outside
	case errors.As(err, &nf):
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("NotFoundError does not match fs.ErrNotExist")
		}
		return notFound
	case errors.Is(err, ErrInvalidPath):
		return invalid
	case errors.Is(err, ErrSymlinkLoop):
		return loop
	case errors.Is(err, ErrIsDir):
		return isDir
	case errors.Is(err, ErrNotDir):
		return notDir
	}
	t.Fatalf("unclassified error: %v", err)
	return -1
}

// attackFixture is a workspace "proj" next to a directory "outside" that
// must stay unreachable, with links of every kind between them.
func attackFixture(t *testing.T) (base, proj, out string) {
	base = tempDir(t)
	proj, out = filepath.Join(base, "proj"), filepath.Join(base, "outside")
	tree(t, base,
		"outside/secret.txt",
		"outside/sub/deep.txt",
		"project-evil/x.txt", // shares "proj" as a string prefix
		"home/.bashrc",
		"proj/README.md",
		"proj/.env",
		"proj/src/main.go",
		"proj/docs/",
		"link-to-proj -> proj",
	)
	tree(t, proj,
		"out-file -> "+filepath.Join(out, "secret.txt"),
		"out-dir -> "+out,
		"rel-out -> ../outside/secret.txt",
		"chain1 -> chain2",
		"chain2 -> out-file",
		"in-link -> src/main.go",
		"in-dir -> src",
		"abs-in -> "+filepath.Join(proj, "src"),
		"loop1 -> loop2",
		"loop2 -> loop1",
		"self -> self",
		"dangling-in -> nothere.txt",
		"dangling-out -> "+filepath.Join(out, "nothere.txt"),
		"sneaky -> src/../../outside",
		"trick -> nothere/../out-dir/secret.txt",
		"docs/up -> ..",
		"docs/upup -> ../..",
	)
	return base, proj, out
}

func TestResolveAttacks(t *testing.T) {
	base, proj, out := attackFixture(t)
	w := newWS(t, []string{proj}, WithHome(filepath.Join(base, "home")))
	long := strings.Repeat("a/", maxPathLen()/2+1)
	longAfterJoin := strings.Repeat("abcdefgh/", maxPathLen()/9+1)[:maxPathLen()-5] // fits alone, not under proj
	cases := []struct {
		name   string
		path   string
		write  bool
		want   outcome
		inRoot string // for ok
		// resolved, for outside: where the path really leads
		resolved string
	}{
		{name: "dotdot chain", path: "a/../../etc/passwd", want: outside, resolved: filepath.Join(base, "etc/passwd")},
		{name: "dot then dotdot", path: "./../x", want: outside, resolved: filepath.Join(base, "x")},
		{name: "deep dotdot", path: strings.Repeat("../", 40) + "etc/passwd", want: outside, resolved: "/etc/passwd"},
		{name: "dotdot into sibling", path: "../outside/secret.txt", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "dotdot write", path: "../outside/new.txt", write: true, want: outside},
		{name: "absolute outside", path: "/etc/passwd", want: outside, resolved: "/etc/passwd"},
		{name: "absolute sibling sharing prefix", path: filepath.Join(base, "project-evil/x.txt"), want: outside},
		{name: "absolute inside", path: filepath.Join(proj, "src/main.go"), want: ok, inRoot: "src/main.go"},
		{name: "absolute through link to root", path: filepath.Join(base, "link-to-proj/src/main.go"), want: ok, inRoot: "src/main.go"},
		{name: "absolute dotdot back in", path: filepath.Join(proj, "src/../README.md"), want: ok, inRoot: "README.md"},
		{name: "file link out", path: "out-file", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "file link out write", path: "out-file", write: true, want: outside},
		{name: "relative file link out", path: "rel-out", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "link chain out", path: "chain1", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "dir link out", path: "out-dir", want: outside, resolved: out},
		{name: "file below dir link out", path: "out-dir/secret.txt", want: outside},
		{name: "deep file below dir link out", path: "out-dir/sub/deep.txt", want: outside},
		{name: "new file below dir link out", path: "out-dir/new/file.txt", write: true, want: outside},
		{name: "link with dotdot target", path: "sneaky/secret.txt", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "link target missing then dotdot", path: "trick", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "dotdot after link in", path: "in-dir/../../outside/secret.txt", want: outside},
		// ".." is applied to the text first (docs/outside/secret.txt), so
		// it can never climb through a link.
		{name: "link to parent then dotdot", path: "docs/up/../outside/secret.txt", want: notFound},
		{name: "link two levels up", path: "docs/upup/outside/secret.txt", want: outside, resolved: filepath.Join(out, "secret.txt")},
		{name: "file link in", path: "in-link", want: ok, inRoot: "src/main.go"},
		{name: "dir link in", path: "in-dir/main.go", want: ok, inRoot: "src/main.go"},
		{name: "absolute link in", path: "abs-in/main.go", want: ok, inRoot: "src/main.go"},
		{name: "link to parent stays in", path: "docs/up/README.md", want: ok, inRoot: "README.md"},
		{name: "loop", path: "loop1", want: loop},
		{name: "loop below", path: "loop1/x", write: true, want: loop},
		{name: "self loop", path: "self", want: loop},
		{name: "dangling out read", path: "dangling-out", want: outside},
		{name: "dangling out write", path: "dangling-out", write: true, want: outside, resolved: filepath.Join(out, "nothere.txt")},
		{name: "dangling in read", path: "dangling-in", want: notFound},
		{name: "dangling in write", path: "dangling-in", write: true, want: ok, inRoot: "nothere.txt"},
		{name: "home", path: "~", want: outside, resolved: filepath.Join(base, "home")},
		{name: "home file", path: "~/.bashrc", want: outside},
		{name: "home dotdot", path: "~/../", want: outside, resolved: base},
		{name: "home dotdot into proj", path: "~/../proj/README.md", want: ok, inRoot: "README.md"},
		{name: "tilde name is relative", path: "~user/x", write: true, want: ok, inRoot: "~user/x"},
		{name: "longer than PATH_MAX", path: long, want: invalid},
		{name: "too long once joined", path: longAfterJoin, write: true, want: invalid},
		{name: "name longer than NAME_MAX", path: strings.Repeat("x", 300), write: true, want: invalid},
		{name: "NUL byte", path: "src/\x00main.go", want: invalid},
		{name: "NUL byte write", path: "a\x00/../../etc/passwd", write: true, want: invalid},
		{name: "empty", path: "", want: invalid},
		{name: "blank", path: " \n", want: invalid},
		{name: "missing read", path: "src/nope.go", want: notFound},
		{name: "new nested write", path: "new/deep/nested/file.go", write: true, want: ok, inRoot: "new/deep/nested/file.go"},
		{name: "new file in new dir below link in", path: "in-dir/pkg/x.go", write: true, want: ok, inRoot: "src/pkg/x.go"},
		{name: "write a directory", path: "src", write: true, want: isDir},
		{name: "write below a file", path: "README.md/x.go", write: true, want: notDir},
		{name: "read below a file", path: "README.md/x.go", want: notFound},
		{name: "root dot", path: ".", want: ok, inRoot: "."},
		{name: "root by name", path: "proj", want: ok, inRoot: "."},
		{name: "name-prefixed", path: "proj/src/main.go", want: ok, inRoot: "src/main.go"},
		{name: "name-prefixed new file", path: "proj/src/new.go", write: true, want: ok, inRoot: "src/new.go"},
		{name: "trailing newline from a model", path: "src/main.go\n", want: ok, inRoot: "src/main.go"},
		{name: "slashes doubled", path: "src//main.go", want: ok, inRoot: "src/main.go"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resolve := w.Resolve
			if tc.write {
				resolve = w.ResolveForWrite
			}
			got, err := resolve(tc.path)
			if o := classify(t, err); o != tc.want {
				t.Fatalf("Resolve(%q) = %+v, %v; want %v", tc.path, got, err, tc.want)
			}
			if tc.want == ok {
				if got.InRoot != tc.inRoot {
					t.Errorf("InRoot = %q, want %q", got.InRoot, tc.inRoot)
				}
				if want := filepath.Join(proj, filepath.FromSlash(tc.inRoot)); got.Abs != want {
					t.Errorf("Abs = %q, want %q", got.Abs, want)
				}
				if got.Root != "proj" {
					t.Errorf("Root = %q, want proj", got.Root)
				}
			}
			var oe *OutsideError
			if errors.As(err, &oe) {
				if oe.Path != tc.path {
					t.Errorf("OutsideError.Path = %q, want %q", oe.Path, tc.path)
				}
				if tc.resolved != "" && oe.Resolved != tc.resolved {
					t.Errorf("OutsideError.Resolved = %q, want %q", oe.Resolved, tc.resolved)
				}
				if _, in := within(oe.Resolved, proj, false); in {
					t.Errorf("OutsideError for %q inside the root", oe.Resolved)
				}
				if !strings.Contains(err.Error(), "outside the workspace") || !strings.Contains(err.Error(), proj) {
					t.Errorf("message does not say where the workspace is: %v", err)
				}
			}
		})
	}
}

func TestOutsideErrorOffersDirectory(t *testing.T) {
	_, proj, out := attackFixture(t)
	w := newWS(t, []string{proj})
	cases := []struct{ path, dir string }{
		{"out-file", out}, // a file: its directory
		{"out-dir", out},  // a directory: itself
		{"out-dir/sub/new/x.txt", filepath.Join(out, "sub")}, // to be created: deepest existing
	}
	for _, tc := range cases {
		_, err := w.ResolveForWrite(tc.path)
		var oe *OutsideError
		if !errors.As(err, &oe) {
			t.Fatalf("%s: err = %v, want OutsideError", tc.path, err)
		}
		if oe.Dir != tc.dir {
			t.Errorf("%s: Dir = %q, want %q", tc.path, oe.Dir, tc.dir)
		}
		if !strings.Contains(oe.Error(), "allow "+tc.dir) {
			t.Errorf("%s: message does not offer to allow %s: %v", tc.path, tc.dir, oe)
		}
	}
}

func TestAllow(t *testing.T) {
	base, proj, out := attackFixture(t)
	w := newWS(t, []string{proj})
	if _, err := w.Resolve("out-file"); classify(t, err) != outside {
		t.Fatalf("before Allow: %v, want outside", err)
	}
	if err := w.Allow(filepath.Join(base, "nothere")); err == nil {
		t.Fatal("Allow of a missing directory succeeded")
	}
	if err := w.Allow(filepath.Join(out, "secret.txt")); err == nil {
		t.Fatal("Allow of a file succeeded")
	}
	if err := w.Allow("out-dir"); err != nil { // relative to the primary root, through a link
		t.Fatal(err)
	}
	if got := w.Allowed(); len(got) != 1 || got[0] != out {
		t.Fatalf("Allowed = %v, want [%s]", got, out)
	}
	for _, p := range []string{"out-file", "out-dir/sub/deep.txt", filepath.Join(out, "secret.txt")} {
		got, err := w.Resolve(p)
		if err != nil {
			t.Fatalf("after Allow, Resolve(%q): %v", p, err)
		}
		if got.Root != "" || !filepath.IsAbs(filepath.FromSlash(got.Rel)) {
			t.Errorf("Resolve(%q) = Root %q Rel %q; want no root and an absolute display path", p, got.Root, got.Rel)
		}
	}
	got, _ := w.Resolve("out-dir/sub/deep.txt")
	if got.InRoot != "sub/deep.txt" {
		t.Errorf("InRoot = %q, want sub/deep.txt", got.InRoot)
	}
	// Allowing one directory does not open its parent.
	if _, err := w.ResolveForWrite("../project-evil/x.txt"); classify(t, err) != outside {
		t.Errorf("sibling of allowed directory: %v, want outside", err)
	}
	// An allowed directory can be walked; its entries display absolute.
	var mu sync.Mutex
	var walked []string
	err := w.Walk(context.Background(), "out-dir", WalkOptions{}, func(e Entry) error {
		mu.Lock()
		defer mu.Unlock()
		walked = append(walked, e.InRoot+" "+e.Rel)
		return nil
	})
	slices.Sort(walked)
	want := []string{
		"secret.txt " + filepath.ToSlash(filepath.Join(out, "secret.txt")),
		"sub " + filepath.ToSlash(filepath.Join(out, "sub")),
		"sub/deep.txt " + filepath.ToSlash(filepath.Join(out, "sub/deep.txt")),
	}
	if err != nil || !slices.Equal(walked, want) {
		t.Errorf("walk of allowed directory = %q, %v; want %q", walked, err, want)
	}
	if !w.Contains(filepath.Join(out, "new.txt")) || w.Contains(filepath.Join(base, "home/.bashrc")) {
		t.Error("Contains disagrees with Allow")
	}
}

func TestHomeInside(t *testing.T) {
	_, proj, _ := attackFixture(t)
	w := newWS(t, []string{proj}, WithHome(proj))
	got, err := w.Resolve("~/src/main.go")
	if err != nil || got.InRoot != "src/main.go" {
		t.Fatalf("Resolve(~/src/main.go) = %+v, %v", got, err)
	}
	w = newWS(t, []string{proj}, WithHome(""))
	if _, err := w.Resolve("~/x"); classify(t, err) != invalid || !strings.Contains(err.Error(), "home directory") {
		t.Errorf("unknown home: %v, want an invalid-path error naming the home directory", err)
	}
}

func TestContainsAndRel(t *testing.T) {
	_, proj, out := attackFixture(t)
	w := newWS(t, []string{proj})
	for p, want := range map[string]bool{
		filepath.Join(proj, "src/main.go"):      true,
		filepath.Join(proj, "not/yet/there.go"): true,
		filepath.Join(proj, "out-file"):         false,
		filepath.Join(proj, "out-dir/x"):        false,
		filepath.Join(out, "secret.txt"):        false,
		"src/main.go":                           true,
		"loop1":                                 false,
		"":                                      false,
	} {
		if got := w.Contains(p); got != want {
			t.Errorf("Contains(%q) = %v, want %v", p, got, want)
		}
	}
	for abs, want := range map[string]string{
		proj:                               ".",
		filepath.Join(proj, "src/main.go"): "src/main.go",
		filepath.Join(out, "secret.txt"):   filepath.ToSlash(filepath.Join(out, "secret.txt")),
	} {
		if got := w.Rel(abs); got != want {
			t.Errorf("Rel(%q) = %q, want %q", abs, got, want)
		}
	}
}

func TestNewRejectsBadRoots(t *testing.T) {
	base, proj, _ := attackFixture(t)
	for name, roots := range map[string][]string{
		"none":    nil,
		"missing": {filepath.Join(base, "nothere")},
		"file":    {filepath.Join(proj, "README.md")},
		"empty":   {""},
	} {
		if _, err := New(roots); err == nil {
			t.Errorf("%s: New(%q) succeeded", name, roots)
		}
	}
	w := newWS(t, []string{filepath.Join(base, "link-to-proj"), proj})
	if rs := w.Roots(); len(rs) != 1 || rs[0].Path != proj {
		t.Errorf("roots = %+v, want the link resolved and the duplicate dropped", rs)
	}
}

// TestCaseInsensitiveRoot simulates a macOS or Windows volume on Linux.
func TestCaseInsensitiveRoot(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "Proj")
	tree(t, base, "Proj/src/Main.go", "Proj/.env", "outside/secret.txt", "Project-evil/x")
	tree(t, root, "alias -> "+filepath.Join(base, "PROJ", "src")) // a case variant of the root's own path
	folded := newWS(t, []string{root}, WithCaseInsensitive(true))
	exact := newWS(t, []string{root}, WithCaseInsensitive(false))
	cases := []struct {
		name   string
		w      *Workspace
		path   string
		write  bool
		want   outcome
		inRoot string
	}{
		{"case variant of root, folded", folded, filepath.Join(base, "PROJ/SRC/main.go"), false, ok, "src/Main.go"},
		{"case variant of root, exact", exact, filepath.Join(base, "PROJ/src/Main.go"), false, outside, ""},
		{"relative wrong case takes disk spelling", folded, "SRC/MAIN.GO", false, ok, "src/Main.go"},
		{"env in capitals is the env file", folded, ".ENV", true, ok, ".env"},
		{"new file keeps its spelling", folded, "Src/New.go", true, ok, "src/New.go"},
		{"prefix sibling, folded", folded, filepath.Join(base, "PROJECT-EVIL/x"), false, outside, ""},
		{"dotdot with case", folded, "../PROJ/../outside/secret.txt", false, outside, ""},
		{"root name in other case", folded, "proj/src/Main.go", false, ok, "src/Main.go"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resolve := tc.w.Resolve
			if tc.write {
				resolve = tc.w.ResolveForWrite
			}
			got, err := resolve(tc.path)
			if o := classify(t, err); o != tc.want {
				t.Fatalf("Resolve(%q) = %+v, %v; want %v", tc.path, got, err, tc.want)
			}
			if tc.want == ok {
				if got.InRoot != tc.inRoot {
					t.Errorf("InRoot = %q, want %q", got.InRoot, tc.inRoot)
				}
				if !got.CaseInsensitive {
					t.Error("CaseInsensitive not set")
				}
			}
		})
	}
	// The link spells the root in capitals: inside on a folded volume,
	// outside on an exact one (where that spelling names no directory).
	if got, err := folded.Resolve("alias/Main.go"); err != nil || got.InRoot != "src/Main.go" {
		t.Errorf("folded alias: %+v, %v", got, err)
	}
	if _, err := exact.ResolveForWrite("alias/Main.go"); classify(t, err) != outside {
		t.Errorf("exact alias: %v, want outside", err)
	}
}

func TestCaseProbe(t *testing.T) {
	base := tempDir(t)
	tree(t, base, "Mixed/")
	w := newWS(t, []string{filepath.Join(base, "Mixed")})
	// Compare with what the file system says about the swapped spelling.
	_, err := os.Stat(filepath.Join(base, "mIXED"))
	if want := err == nil; w.Primary().CaseInsensitive != want {
		t.Errorf("CaseInsensitive = %v, want %v", w.Primary().CaseInsensitive, want)
	}
}
