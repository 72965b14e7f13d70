//go:build unix

package confined

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused at once: opening it for reading would wait for a
// writer forever.
func TestFIFORefused(t *testing.T) {
	tr := newTree(t)
	p := filepath.Join(tr.dir, "pipe.md")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(p, Scope{Dir: tr.dir}, 100)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("err = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the reader so the test can end.
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("reading a FIFO blocked")
	}
}
