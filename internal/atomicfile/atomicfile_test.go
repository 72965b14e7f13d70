package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesContentAndMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hard")
	if err := os.Link(p, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(got) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v", got, fi.Mode())
	}
	if old, _ := os.ReadFile(link); string(old) != "old" {
		t.Errorf("a hard link to the old file changed: %q", old)
	}
	assertNoTemp(t, dir)
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file should be: the rename fails.
	p := filepath.Join(dir, "taken")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Fatalf("the directory changed: %v %v", fi, err)
	}
	assertNoTemp(t, dir)
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

func TestLongNamesFit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, strings.Repeat("n", 250))
	if err := Write(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
