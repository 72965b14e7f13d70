package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func BenchmarkResolve(b *testing.B) {
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tree(b, base, "proj/main.go", "proj/a/b/c/d/e/f/g/h.go", "other/only/here.go", "proj/link -> a/b/c")
	single := newWS(b, []string{filepath.Join(base, "proj")})
	multi := newWS(b, []string{filepath.Join(base, "proj"), filepath.Join(base, "other")})
	cases := []struct {
		name  string
		w     *Workspace
		path  string
		write bool
	}{
		{"shallow", single, "main.go", false},
		{"deep", single, "a/b/c/d/e/f/g/h.go", false},
		{"through-link", single, "link/d/e/f/g/h.go", false},
		{"absolute", single, filepath.Join(base, "proj/a/b/c/d/e/f/g/h.go"), false},
		{"write-new", single, "a/b/new/dir/x.go", true},
		{"multiroot-second-root", multi, "only/here.go", false},
		{"outside", single, "../../../etc/passwd", false},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			resolve := tc.w.Resolve
			if tc.write {
				resolve = tc.w.ResolveForWrite
			}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = resolve(tc.path)
			}
		})
	}
}

// BenchmarkWalk walks a generated tree of 20,000 files in 220 directories,
// with ignore files at the top and in every top-level directory.
func BenchmarkWalk(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\nbuild/\n!keep.log\n"), 0o644))
	files := 0
	for i := range 20 {
		top := filepath.Join(root, fmt.Sprintf("pkg%02d", i))
		must(os.MkdirAll(top, 0o755))
		must(os.WriteFile(filepath.Join(top, ".gitignore"), []byte("*.tmp\n"), 0o644))
		files++
		for j := range 10 {
			dir := filepath.Join(top, fmt.Sprintf("sub%02d", j))
			must(os.MkdirAll(dir, 0o755))
			for k := range 100 {
				ext := [...]string{".go", ".go", ".go", ".log", ".tmp"}[k%5]
				must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d%s", k, ext)), nil, 0o644))
				files++
			}
		}
	}
	w := newWS(b, []string{root})
	for _, bc := range []struct {
		name string
		opts WalkOptions
	}{
		{"gitignore", WalkOptions{}},
		{"no-ignore", WalkOptions{NoIgnore: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var seen atomic.Int64
			for b.Loop() {
				seen.Store(0)
				err := w.Walk(context.Background(), ".", bc.opts, func(e Entry) error {
					seen.Add(1)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(seen.Load()), "entries/op")
			b.ReportMetric(float64(files), "files")
		})
	}
}
