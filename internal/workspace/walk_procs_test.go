package workspace

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/olly-agent/olly/internal/procs"
)

// TestWalkWidens checks that under olly's one-P policy (internal/procs) a
// walk's goroutines get Go's default GOMAXPROCS while it runs, and the
// process is back on one P when it returns.
func TestWalkWidens(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" || os.Getenv(procs.Env) == "0" {
		t.Skip("GOMAXPROCS or " + procs.Env + "=0 is set: the policy is off")
	}
	def := runtime.GOMAXPROCS(0)
	if def < 2 {
		t.Skip("needs at least 2 CPUs to see the difference")
	}
	dir := t.TempDir()
	for _, name := range []string{"a/x.go", "a/y.go", "b/z.go"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if !procs.Enable() {
		t.Fatal("procs.Enable refused without GOMAXPROCS or OLLY_ONEPROC set")
	}
	defer procs.Disable()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("after Enable GOMAXPROCS = %d, want 1", n)
	}
	var minSeen atomic.Int64
	minSeen.Store(int64(def))
	var files atomic.Int64
	err = w.Walk(context.Background(), ".", WalkOptions{}, func(e Entry) error {
		if n := int64(runtime.GOMAXPROCS(0)); n < minSeen.Load() {
			minSeen.Store(n)
		}
		if !e.IsDir {
			files.Add(1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files.Load() != 3 {
		t.Fatalf("walk saw %d files, want 3", files.Load())
	}
	if got := minSeen.Load(); got != int64(def) {
		t.Errorf("GOMAXPROCS inside the walk = %d, want the default %d", got, def)
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("after the walk GOMAXPROCS = %d, want 1", n)
	}
}
