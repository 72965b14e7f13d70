package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// grantOf returns the widest grant on path (the kernel grants the union).
func grantOf(gs []Grant, path string) (Grant, bool) {
	var best Grant
	found := false
	for _, g := range gs {
		if g.Path == path && (!found || g.Access > best.Access) {
			best, found = g, true
		}
	}
	return best, found
}

func TestPlanBuildsTheAllowListAroundProtectedPaths(t *testing.T) {
	home := t.TempDir()
	home, _ = filepath.EvalSymlinks(home)
	for _, d := range []string{".ssh", "proj/src", "proj/secret", ".cache", "docs"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A link in the workspace to a protected folder, and one out of it.
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "proj", "keys")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "docs"), filepath.Join(home, "proj", "docs")); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(home, "proj")
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{proj, filepath.Join(home, ".cache"), filepath.Join(home, "missing")},
		DenyRead: []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), filepath.Join(proj, "secret")}}
	gs := Plan(spec)

	mustNot := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), filepath.Join(proj, "secret"), filepath.Join(home, "missing")}
	for _, g := range gs {
		for _, d := range mustNot {
			if under(g.Path, d) {
				t.Errorf("grant %+v reaches protected %s", g, d)
			}
		}
		if g.Access != List && g.Dir && under(home, g.Path) {
			t.Errorf("grant %+v covers the whole home folder, protected paths included", g)
		}
	}
	if g, ok := grantOf(gs, filepath.Join(home, "notes.txt")); !ok || g.Access != Read || g.Dir {
		t.Errorf("notes.txt grant = %+v, %v; want a file read grant", g, ok)
	}
	if g, ok := grantOf(gs, filepath.Join(home, ".cache")); !ok || g.Access != Write {
		t.Errorf(".cache grant = %+v, %v; want writable", g, ok)
	}
	if g, ok := grantOf(gs, filepath.Join(proj, "src")); !ok || g.Access != Write {
		t.Errorf("proj/src grant = %+v, %v; want writable (the workspace minus its protected folder)", g, ok)
	}
	if g, ok := grantOf(gs, home); !ok || g.Access != List {
		t.Errorf("home grant = %+v, %v; want list only", g, ok)
	}
	if slices.ContainsFunc(gs, func(g Grant) bool { return g.Access == Write && under(g.Path, filepath.Join(home, "docs")) }) {
		t.Error("a link out of the workspace made its target writable")
	}
	if g, ok := grantOf(gs, "/dev/null"); !ok || g.Access != Write {
		t.Errorf("/dev/null grant = %+v, %v; want writable", g, ok)
	}
}

func TestPlanReadOnlyWritesOnlyOwn(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{state, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	gs := Plan(Spec{Policy: ReadOnly, Writable: []string{dir}, Own: []string{state, tmp}})
	for _, g := range gs {
		if g.Access == Write && !slices.Contains([]string{"/dev/null", "/dev/zero", "/dev/full"}, g.Path) && !under(g.Path, realOrSelf(state)) {
			t.Errorf("read-only grants write on %s", g.Path)
		}
	}
	if _, ok := grantOf(gs, realOrSelf(state)); !ok {
		t.Error("read-only does not let the shell save its state")
	}
}

func TestOwnFoldersInsideAProtectedFolderStayWritable(t *testing.T) {
	dir := t.TempDir()
	scratch := filepath.Join(dir, "olly", "scratch")
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	gs := Plan(Spec{Policy: WorkspaceWrite, Own: []string{scratch}, DenyRead: []string{filepath.Join(dir, "olly")}})
	if g, ok := grantOf(gs, realOrSelf(scratch)); !ok || g.Access != Write {
		t.Fatalf("scratch grant = %+v, %v", g, ok)
	}
}
