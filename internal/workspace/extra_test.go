package workspace

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Extra roots (--add-dir, workspace.extraRoots) widen the workspace in
// advance: files there resolve without an OutsideError, and Dirs lists
// them for the sandbox; anything else outside stays outside.
func TestExtraRoots(t *testing.T) {
	base := tempDir(t)
	tree(t, base, "proj/main.go", "shared/lib.go", "home/notes/todo.md", "secret/key")
	proj, shared := filepath.Join(base, "proj"), filepath.Join(base, "shared")
	w := newWS(t, []string{proj}, WithHome(filepath.Join(base, "home")), WithExtraRoots(shared, "~/notes", ""))

	notes := filepath.Join(base, "home", "notes")
	if got, want := w.Dirs(), []string{proj, shared, notes}; !slices.Equal(got, want) {
		t.Fatalf("Dirs = %v, want %v", got, want)
	}
	for _, p := range []string{filepath.Join(shared, "lib.go"), "~/notes/todo.md"} {
		if _, err := w.Resolve(p); err != nil {
			t.Errorf("Resolve(%s) in an extra root: %v", p, err)
		}
	}
	if _, err := w.ResolveForWrite(filepath.Join(shared, "new.go")); err != nil {
		t.Errorf("write in an extra root: %v", err)
	}
	var out *OutsideError
	if _, err := w.Resolve(filepath.Join(base, "secret", "key")); !errors.As(err, &out) {
		t.Fatalf("a directory beside the extra roots is inside: %v", err)
	}
	// A directory the person allows later joins Dirs, after the extra roots.
	if err := w.Allow(filepath.Join(base, "secret")); err != nil {
		t.Fatal(err)
	}
	if got, want := w.Dirs(), []string{proj, shared, notes, filepath.Join(base, "secret")}; !slices.Equal(got, want) {
		t.Fatalf("Dirs after Allow = %v, want %v", got, want)
	}
}

func TestExtraRootMissing(t *testing.T) {
	base := tempDir(t)
	tree(t, base, "proj/main.go", "file.txt")
	for _, dir := range []string{filepath.Join(base, "nope"), filepath.Join(base, "file.txt")} {
		_, err := New([]string{filepath.Join(base, "proj")}, WithExtraRoots(dir))
		if err == nil || !strings.Contains(err.Error(), "extra root") || !strings.Contains(err.Error(), dir) {
			t.Errorf("New with extra root %s: %v, want an error naming it", dir, err)
		}
	}
}
