//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestWalkPastPlantedFIFOs: a FIFO a command planted as the root's .git
// file or as a folder's .gitignore neither hangs the walk (a plain open
// waits for a writer forever) nor hides the files beside it.
func TestWalkPastPlantedFIFOs(t *testing.T) {
	base := tempDir(t)
	proj := filepath.Join(base, "proj")
	tree(t, base, "proj/main.go", "proj/sub/a.go")
	for _, p := range []string{"proj/.git", "proj/sub/.gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(base, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan []string, 1)
	go func() {
		w := newWS(t, []string{proj})
		done <- collect(t, w, ".", WalkOptions{})
	}()
	select {
	case got := <-done:
		for _, p := range []string{"main.go", "sub/a.go"} {
			if !slices.Contains(got, p) {
				t.Errorf("walk misses %s: %v", p, got)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the walk hangs on a planted FIFO")
	}
}

// OpenRegular refuses a FIFO at once, follows a link to a regular file,
// and refuses a directory; OpenRegularNoFollow refuses the link.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "index")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	refusesFIFO(t, fifo, func() error {
		f, _, err := OpenRegular(fifo)
		if err == nil {
			f.Close()
		}
		return err
	})
	file := filepath.Join(dir, "config")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	f, info, err := OpenRegular(link)
	if err != nil || info.Size() != 1 {
		t.Fatalf("a link to a regular file: %v, info %v", err, info)
	}
	f.Close()
	if f, _, err := OpenRegularNoFollow(link); err == nil {
		f.Close()
		t.Fatal("OpenRegularNoFollow opened a link")
	}
	if f, _, err := OpenRegularNoFollow(file); err != nil {
		t.Fatalf("OpenRegularNoFollow, a regular file: %v", err)
	} else {
		f.Close()
	}
	if _, _, err := OpenRegular(dir); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a directory: err = %v, want ErrNotRegular", err)
	}
}

// TestReadRegularNoFollow: the read behind @-attachments and project
// files refuses a FIFO without waiting for a writer, refuses a link (the
// path was resolved already: a link there now was swapped in), and reads
// at most limit bytes of a regular file.
func TestReadRegularNoFollow(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	refusesFIFO(t, fifo, func() error {
		_, err := ReadRegularNoFollow(fifo, 10)
		return err
	})
	if b, err := ReadRegularNoFollow(link, 10); err == nil {
		t.Fatalf("a link was followed: read %q", b)
	}
	if b, err := ReadRegularNoFollow(file, 3); err != nil || string(b) != "hel" {
		t.Fatalf("ReadRegularNoFollow(file, 3) = %q, %v; want \"hel\"", b, err)
	}
}

// refusesFIFO requires open (of the FIFO at fifo) to fail with
// ErrNotRegular without waiting for a writer; if it blocks, a writer is
// opened to free it and the test fails.
func refusesFIFO(t *testing.T, fifo string, open func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- open() }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("FIFO: err = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("opening a FIFO blocked")
	}
}
