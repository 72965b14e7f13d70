package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.go", "a/c.go", "skip/x.log", ".gitignore"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		content := ""
		if f == ".gitignore" {
			content = "skip/\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Files(context.Background(), 100)
	if err != nil || !slices.Equal(got, []string{".gitignore", "a/c.go", "b.go"}) {
		t.Fatalf("Files = %q, %v: sorted, ignored files left out", got, err)
	}
	if got, _ := w.Files(context.Background(), 2); len(got) != 2 {
		t.Errorf("Files with max 2 = %q", got)
	}
}
