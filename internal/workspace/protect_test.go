package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A workspace opened on the home folder holds olly's own folders: the file
// tools must not write there (trust decisions, settings), except in a
// directory allowed inside them (the scratch folder).
func TestWriteRefusedInProtectedFolder(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "olly")
	config := filepath.Join(home, ".config", "olly")
	scratch := filepath.Join(state, "scratch", "s1")
	for _, d := range []string{state, config, scratch} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(home, ".local", "share", "olly") // not created yet
	w, err := New([]string{home}, WithHome(home), WithProtected(config, state, missing))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Allow(scratch); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(state, filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		".local/state/olly/trust.json",
		"~/.config/olly/settings.yaml",
		filepath.Join(config, "hooks.json"),
		".local/share/olly/olly.db",
		"link/trust.json", // through a link
		".local/state/olly/scratch/other.txt",
	} {
		if _, err := w.ResolveForWrite(p); !errors.Is(err, ErrProtected) {
			t.Errorf("ResolveForWrite(%q) = %v, want ErrProtected", p, err)
		}
	}
	for _, p := range []string{"notes.txt", ".local/state/olly/scratch/s1/out.txt", ".config/other/x"} {
		if _, err := w.ResolveForWrite(p); err != nil {
			t.Errorf("ResolveForWrite(%q) = %v, want it allowed", p, err)
		}
	}
	if _, err := w.Resolve(".local/state/olly"); err != nil {
		t.Errorf("reading is not refused: %v", err)
	}
}
