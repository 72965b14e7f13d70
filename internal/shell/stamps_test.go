package shell

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMissingPlaceFolderInTheFutureIsNotRacy: a folder whose time is in
// the future (a command ran touch -d tomorrow on it, or a file server's
// clock runs ahead) is stamped as any old one (one stat per check, not a
// look at every missing place), and a place made in it is still seen (a
// new entry sets the folder's time to now).
func TestMissingPlaceFolderInTheFutureIsNotRacy(t *testing.T) {
	home := t.TempDir()
	future := time.Now().Add(24 * time.Hour)
	if err := os.Chtimes(home, future, future); err != nil {
		t.Fatal(err)
	}
	place := filepath.Join(home, ".npm")
	stamps := missingStamps([]string{place})
	if len(stamps) != 1 || stamps[0].path != home {
		t.Fatalf("stamps %+v, want one for %s", stamps, home)
	}
	if stamps[0].racy {
		t.Errorf("a folder whose time is in the future is racy: %+v", stamps[0])
	}
	if stampsChanged(stamps) {
		t.Fatal("changed without a change")
	}
	if err := os.Mkdir(place, 0o700); err != nil {
		t.Fatal(err)
	}
	if !stampsChanged(stamps) {
		t.Error("a place made in a folder whose time was in the future went unnoticed")
	}
}
