package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Walk starts goroutines (fastwalk's workers): none may outlive it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// tree builds files, directories and symbolic links under base from a
// compact spec: "dir/" makes a directory, "a -> b" a symbolic link with
// target b (verbatim), anything else a file whose content is its path.
func tree(t testing.TB, base string, spec ...string) {
	t.Helper()
	for _, s := range spec {
		if name, target, ok := strings.Cut(s, " -> "); ok {
			p := filepath.Join(base, name)
			mkdir(t, filepath.Dir(p))
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(base, s)
		if strings.HasSuffix(s, "/") {
			mkdir(t, p)
			continue
		}
		mkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// tempDir is t.TempDir with its own symbolic links resolved (macOS puts
// temporary directories behind /var -> /private/var), so expected paths
// compare equal to resolved ones.
func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newWS(t testing.TB, roots []string, opts ...Option) *Workspace {
	t.Helper()
	w, err := New(roots, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
