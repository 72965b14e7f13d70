//go:build unix

package trust

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO swapped in after the Stat must neither block the open nor be
// hashed as content.
func TestHashOpenedFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "server.js")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan string, 1)
	go func() { done <- hashOpened(p) }()
	select {
	case got := <-done:
		if got != HashNotRegular {
			t.Fatalf("hashOpened(FIFO) = %q, want %q", got, HashNotRegular)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hashOpened blocked on a FIFO")
	}
}
