package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// clock is a settable time for FileIndex.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestFileIndexCachesAndNoticesChanges(t *testing.T) {
	dir := tempDir(t)
	tree(t, dir, "a/b/one.go", "two.go", ".gitignore", "build/out.bin")
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWS(t, []string{dir})
	c := &clock{t: time.Unix(1000, 0)}
	x := NewFileIndex(FileIndexOptions{Fresh: time.Second, MaxAge: time.Minute, Now: c.now})
	ctx := context.Background()

	first, err := x.Files(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".gitignore", "a/b/one.go", "two.go"}; !slices.Equal(first.Files(), want) {
		t.Fatalf("Files = %q, want %q (ignored build/ left out)", first.Files(), want)
	}

	// Within Fresh the listing is used without looking: a new file is not
	// seen yet.
	tree(t, dir, "a/b/three.go")
	if l, _ := x.Files(ctx, w); l != first {
		t.Fatal("listed again within the fresh window")
	}
	// After it, the changed directory (a/b) makes it list again.
	c.add(2 * time.Second)
	second, err := x.Files(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || !slices.Contains(second.Files(), "a/b/three.go") {
		t.Fatalf("after a file was created: %q", second.Files())
	}
	// Nothing changed: the same listing, checked, not walked again.
	c.add(2 * time.Second)
	if l, _ := x.Files(ctx, w); l != second {
		t.Fatal("listed again although no directory changed")
	}
	// A removal is seen too.
	if err := os.Remove(filepath.Join(dir, "two.go")); err != nil {
		t.Fatal(err)
	}
	c.add(2 * time.Second)
	third, _ := x.Files(ctx, w)
	if slices.Contains(third.Files(), "two.go") {
		t.Fatalf("a removed file is still listed: %q", third.Files())
	}
	// An ignore file edited in place leaves the directory's time alone:
	// MaxAge lists again anyway.
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\na/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.add(time.Minute)
	fourth, _ := x.Files(ctx, w)
	if slices.Contains(fourth.Files(), "a/b/one.go") {
		t.Fatalf("after MaxAge the new ignore rule is not applied: %q", fourth.Files())
	}
	if got, _ := x.Complete(ctx, w, "GITIG", 5); !slices.Equal(got, []string{".gitignore"}) {
		t.Errorf("Complete = %q", got)
	}
}

func TestFileIndexBounds(t *testing.T) {
	base := tempDir(t)
	var spaces []*Workspace
	for _, name := range []string{"p1", "p2", "p3"} {
		tree(t, base, name+"/a.go", name+"/b.go", name+"/c.go")
		spaces = append(spaces, newWS(t, []string{filepath.Join(base, name)}))
	}
	c := &clock{t: time.Unix(1000, 0)}
	x := NewFileIndex(FileIndexOptions{MaxFiles: 2, MaxWorkspaces: 2, Now: c.now})
	ctx := context.Background()
	for _, w := range spaces {
		c.add(time.Millisecond)
		l, err := x.Files(ctx, w)
		if err != nil || l.Len() != 2 {
			t.Fatalf("Files of %s: %d files (%v), want MaxFiles 2", w.Primary().Path, l.Len(), err)
		}
	}
	x.mu.Lock()
	_, kept1 := x.entries[spaces[0].Primary().Path]
	n := len(x.entries)
	x.mu.Unlock()
	if n != 2 || kept1 {
		t.Errorf("%d listings kept (the first kept: %v), want the 2 most recently used", n, kept1)
	}
}

func TestFileIndexConcurrentAndCanceled(t *testing.T) {
	dir := tempDir(t)
	tree(t, dir, "x/one.go", "y/two.go")
	w := newWS(t, []string{dir})
	x := NewFileIndex(FileIndexOptions{})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := x.Files(canceled, w); err == nil {
		t.Fatal("a canceled context listed files")
	}
	var wg sync.WaitGroup
	lists := make([]*FileList, 8)
	for i := range lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := x.Files(context.Background(), w)
			if err != nil {
				t.Error(err)
			}
			lists[i] = l
		}()
	}
	wg.Wait()
	for _, l := range lists {
		if l == nil || l.Len() != 2 || l != lists[0] {
			t.Fatalf("a concurrent request got %v, want the one listing all share", l)
		}
	}
}

// At most MaxDirs directories are stamped: a tree of many directories
// with few files is not stat'ed whole at every check. A change in the
// root (stamped first) is seen after Fresh; one in a directory past the
// bound at MaxAge.
func TestFileIndexMaxDirs(t *testing.T) {
	dir := tempDir(t)
	tree(t, dir, "d1/a.go", "d2/b.go", "d3/c.go", "d4/d.go", "top.go")
	w := newWS(t, []string{dir})
	c := &clock{t: time.Unix(1000, 0)}
	x := NewFileIndex(FileIndexOptions{MaxDirs: 2, Fresh: time.Second, MaxAge: time.Minute, Now: c.now})
	ctx := context.Background()
	first, err := x.Files(ctx, w)
	if err != nil || first.Len() != 5 {
		t.Fatalf("Files: %d files (%v), want all 5 (MaxDirs bounds the stamps, not the listing)", first.Len(), err)
	}
	x.mu.Lock()
	stamps := x.entries[w.Primary().Path].dirs
	x.mu.Unlock()
	stamped := map[string]bool{}
	for _, d := range stamps {
		stamped[d.path] = true
	}
	if len(stamps) != 2 || !stamped[w.Primary().Path] {
		t.Fatalf("stamps %v: want 2, the root's among them", stamps)
	}
	unstamped := ""
	for _, d := range []string{"d1", "d2", "d3", "d4"} {
		if p := filepath.Join(w.Primary().Path, d); !stamped[p] {
			unstamped = d
			break
		}
	}
	tree(t, dir, unstamped+"/new.go")
	c.add(2 * time.Second)
	if l, _ := x.Files(ctx, w); l != first {
		t.Fatalf("listed again although no stamped directory changed: %q", l.Files())
	}
	c.add(time.Minute)
	if l, _ := x.Files(ctx, w); !slices.Contains(l.Files(), unstamped+"/new.go") {
		t.Fatalf("after MaxAge the file created in %s is not listed: %q", unstamped, l.Files())
	}
	tree(t, dir, "top2.go")
	c.add(2 * time.Second)
	if l, _ := x.Files(ctx, w); !slices.Contains(l.Files(), "top2.go") {
		t.Fatalf("a file created in the root is not seen after Fresh: %q", l.Files())
	}
}
