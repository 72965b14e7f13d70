package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve feeds arbitrary strings to both resolvers: they must never
// panic, fail only with the documented kinds of error, and never return a
// path outside the root, checked independently with filepath.EvalSymlinks.
func FuzzResolve(f *testing.F) {
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	proj, out := filepath.Join(base, "proj"), filepath.Join(base, "outside")
	tree(f, base, "outside/secret.txt", "proj/src/main.go", "proj/README.md", "home/x")
	tree(f, proj,
		"out-dir -> "+out,
		"rel-out -> ../outside/secret.txt",
		"in-dir -> src",
		"loop1 -> loop2",
		"loop2 -> loop1",
		"dangling-out -> ../outside/nothere",
		"trick -> nothere/../out-dir",
		"src/up -> ../..",
	)
	w := newWS(f, []string{proj}, WithHome(filepath.Join(base, "home")))
	for _, s := range []string{
		"src/main.go", "../outside/secret.txt", "out-dir/secret.txt", "in-dir/../README.md",
		"~/../proj/README.md", "loop1/x", "dangling-out", "trick/secret.txt", "src/up/outside",
		"proj/src", "/etc/passwd", "a\x00b", strings.Repeat("../", 50), " ./src//main.go ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, resolve := range []func(string) (Path, error){w.Resolve, w.ResolveForWrite} {
			got, err := resolve(p)
			if err != nil {
				if classify(t, err) == outside {
					var oe *OutsideError
					errors.As(err, &oe)
					if _, in := within(oe.Resolved, proj, false); in {
						t.Fatalf("%q: OutsideError for %s, which is inside", p, oe.Resolved)
					}
				}
				continue
			}
			if _, in := within(got.Abs, proj, false); !in {
				t.Fatalf("%q resolved to %s, outside %s", p, got.Abs, proj)
			}
			// The existing part of Abs must contain no link and lie inside.
			existing := got.Abs
			for {
				if _, err := os.Lstat(existing); err == nil {
					break
				}
				existing = filepath.Dir(existing)
			}
			real, err := filepath.EvalSymlinks(existing)
			if err != nil {
				t.Fatalf("%q: EvalSymlinks(%s): %v", p, existing, err)
			}
			if real != existing {
				t.Fatalf("%q: %s still runs through a link to %s", p, existing, real)
			}
			if _, in := within(real, proj, false); !in {
				t.Fatalf("%q: existing part %s lies outside %s", p, real, proj)
			}
			if got.Exists() != (existing == got.Abs) {
				t.Fatalf("%q: Exists() = %v but %s exists up to %s", p, got.Exists(), got.Abs, existing)
			}
		}
	})
}
