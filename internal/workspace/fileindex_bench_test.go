package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkFileIndex measures @file completion on a large tree: Go's own
// sources (GOROOT/src, about 15,000 files), as a keystroke costs it.
func BenchmarkFileIndex(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, serr := os.Stat(src); err != nil || serr != nil {
		b.Skipf("no Go source tree at %s (go env GOROOT: %v)", src, err)
	}
	w := newWS(b, []string{src})
	ctx := context.Background()
	b.Run("walk", func(b *testing.B) { // what every keystroke cost before the index
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.Files(ctx, DefaultMaxFiles); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct {
		name  string
		fresh time.Duration
	}{
		{"cached", time.Hour},        // within the fresh window
		{"checked", time.Nanosecond}, // directories stat'ed at every call
	} {
		x := NewFileIndex(FileIndexOptions{Fresh: tc.fresh, MaxAge: time.Hour})
		if _, err := x.Files(ctx, w); err != nil {
			b.Fatal(err)
		}
		for _, q := range []string{"", "http", "nhttpsrv"} {
			b.Run(tc.name+"/"+q, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := x.Complete(ctx, w, q, 30); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
