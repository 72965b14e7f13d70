//go:build unix

package trust

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/olly-agent/olly/internal/workspace"
)

func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 101)), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// The open itself must not wait for a writer: the type is checked on
	// what was opened (ErrNotRegular), not by a Stat before a plain open.
	fifoLink := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string
		check      func(error) bool
	}{
		{"small", small, `{"a":1}`, func(err error) bool { return err == nil }},
		{"exactly the cap", small, `{"a":1}`, func(err error) bool { return err == nil }},
		{"too large", big, "", func(err error) bool { return errors.Is(err, ErrTooLarge) }},
		{"missing", filepath.Join(dir, "none"), "", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"directory", dir, "", func(err error) bool { return err != nil && strings.Contains(err.Error(), "not a regular file") }},
		{"fifo does not block", fifo, "", func(err error) bool { return errors.Is(err, workspace.ErrNotRegular) }},
		{"link to a fifo does not block", fifoLink, "", func(err error) bool { return errors.Is(err, workspace.ErrNotRegular) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			max := int64(100)
			if tc.name == "exactly the cap" {
				max = int64(len(tc.want))
			}
			got, err := ReadConfig(tc.path, max)
			if !tc.check(err) {
				t.Fatalf("ReadConfig(%s) error = %v", tc.name, err)
			}
			if string(got) != tc.want {
				t.Fatalf("ReadConfig(%s) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

func TestPath(t *testing.T) {
	if got, want := Path("/state/olly"), filepath.Join("/state/olly", "trust.json"); got != want {
		t.Fatalf("Path = %q, want %q", got, want)
	}
}
