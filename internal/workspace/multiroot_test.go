package workspace

import (
	"path/filepath"
	"testing"
)

// TestMultiRoot covers seed 000's resolution order for several roots and
// pitfall #25: a folder name doubled onto a root, and a bare folder name
// matching a same-named subdirectory of another root.
func TestMultiRoot(t *testing.T) {
	base := tempDir(t)
	tree(t, base,
		"frontend/app.ts",
		"frontend/README.md",
		"frontend/src/index.ts",
		"frontend/backend/notes.md", // same name as the other root
		"backend/README.md",
		"backend/go.mod",
		"backend/src/server.go",
	)
	fe, be := filepath.Join(base, "frontend"), filepath.Join(base, "backend")
	w := newWS(t, []string{fe, be})
	cases := []struct {
		name  string
		path  string
		write bool
		abs   string
		rel   string
		root  string
	}{
		{"bare root name is that root, not the subdirectory", "backend", false, be, "backend", "backend"},
		{"bare primary name", "frontend", false, fe, "frontend", "frontend"},
		{"folder-prefixed path", "backend/src/server.go", false, filepath.Join(be, "src/server.go"), "backend/src/server.go", "backend"},
		{"found in another root", "src/server.go", false, filepath.Join(be, "src/server.go"), "backend/src/server.go", "backend"},
		{"found in primary", "src/index.ts", false, filepath.Join(fe, "src/index.ts"), "frontend/src/index.ts", "frontend"},
		{"in both: primary wins", "README.md", false, filepath.Join(fe, "README.md"), "frontend/README.md", "frontend"},
		{"prefixed, only in named root", "backend/README.md", false, filepath.Join(be, "README.md"), "backend/README.md", "backend"},
		{"primary subdirectory wins when it exists there", "backend/notes.md", false, filepath.Join(fe, "backend/notes.md"), "frontend/backend/notes.md", "frontend"},
		{"primary-prefixed", "frontend/app.ts", false, filepath.Join(fe, "app.ts"), "frontend/app.ts", "frontend"},
		{"new file, folder-prefixed", "backend/cmd/new.go", true, filepath.Join(be, "cmd/new.go"), "backend/cmd/new.go", "backend"},
		{"new file, plain", "new.ts", true, filepath.Join(fe, "new.ts"), "frontend/new.ts", "frontend"},
		{"new file in primary subdirectory named like a root", "frontend/backend/new.md", true, filepath.Join(fe, "backend/new.md"), "frontend/backend/new.md", "frontend"},
		{"dotdot into a sibling root", "../backend/go.mod", false, filepath.Join(be, "go.mod"), "backend/go.mod", "backend"},
		{"absolute in second root", filepath.Join(be, "go.mod"), false, filepath.Join(be, "go.mod"), "backend/go.mod", "backend"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resolve := w.Resolve
			if tc.write {
				resolve = w.ResolveForWrite
			}
			got, err := resolve(tc.path)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.path, err)
			}
			if got.Abs != tc.abs || got.Rel != tc.rel || got.Root != tc.root {
				t.Errorf("Resolve(%q) = Abs %q Rel %q Root %q; want %q %q %q", tc.path, got.Abs, got.Rel, got.Root, tc.abs, tc.rel, tc.root)
			}
			if w.Rel(got.Abs) != got.Rel {
				t.Errorf("Rel(%q) = %q, want %q", got.Abs, w.Rel(got.Abs), got.Rel)
			}
		})
	}
	if _, err := w.Resolve("backend/nope.go"); classify(t, err) != notFound {
		t.Errorf("missing prefixed file: %v, want not found", err)
	}
	if _, err := w.Resolve("../elsewhere"); classify(t, err) != outside {
		t.Errorf("dotdot out of every root: %v, want outside", err)
	}
}

func TestSingleRootNamePrefix(t *testing.T) {
	base := tempDir(t)
	tree(t, base,
		"app/main.go",
		"django/manage.py",
		"django/django/__init__.py", // a real subdirectory named like the project
	)
	cases := []struct {
		root, path string
		write      bool
		inRoot     string
	}{
		{"app", "app", false, "."},
		{"app", "app/main.go", false, "main.go"},
		{"app", "app/pkg/new.go", true, "pkg/new.go"}, // no doubling for a new file
		{"django", "django", false, "django"},         // the real subdirectory, not the root
		{"django", "django/__init__.py", false, "django/__init__.py"},
		{"django", "django/manage.py", false, "manage.py"}, // not in the subdirectory: prefix stripped
		{"django", "django/new.py", true, "django/new.py"}, // new file: the subdirectory exists, keep it
	}
	for _, tc := range cases {
		w := newWS(t, []string{filepath.Join(base, tc.root)})
		resolve := w.Resolve
		if tc.write {
			resolve = w.ResolveForWrite
		}
		got, err := resolve(tc.path)
		if err != nil {
			t.Fatalf("%s: Resolve(%q): %v", tc.root, tc.path, err)
		}
		if got.InRoot != tc.inRoot {
			t.Errorf("%s: Resolve(%q).InRoot = %q, want %q", tc.root, tc.path, got.InRoot, tc.inRoot)
		}
	}
}

func TestDuplicateRootNames(t *testing.T) {
	base := tempDir(t)
	tree(t, base, "a/app/one.txt", "b/app/two.txt")
	w := newWS(t, []string{filepath.Join(base, "a/app"), filepath.Join(base, "b/app")})
	rs := w.Roots()
	if rs[0].Name != "app" || rs[1].Name != "app-2" {
		t.Fatalf("names = %q, %q; want app, app-2", rs[0].Name, rs[1].Name)
	}
	got, err := w.Resolve("app-2/two.txt")
	if err != nil || got.Abs != filepath.Join(base, "b/app/two.txt") || got.Rel != "app-2/two.txt" {
		t.Errorf("Resolve(app-2/two.txt) = %+v, %v", got, err)
	}
}
