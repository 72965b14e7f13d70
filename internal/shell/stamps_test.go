package shell

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
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

// TestGitInWritablePlaceIsWatchedByItsTime: a writable place's missing
// .git is looked for only when the place's time changed (a .git made
// there sets it) or was too recent to tell: one stat per check instead
// of two. A .git made in the same clock tick as the stamp is still seen
// (racy), one made and then hidden by setting an old time back is not
// (until the place changes again): the documented limit of a hint.
func TestGitInWritablePlaceIsWatchedByItsTime(t *testing.T) {
	stampOf := func(t *testing.T, place string) []*dirStamp {
		t.Helper()
		spec := sandbox.Spec{Policy: sandbox.WorkspaceWrite, Writable: []string{place}}
		stamps := stampsFor(spec, nil, "")
		if len(stamps) != 1 || stamps[0].git == "" {
			t.Fatalf("stamps %+v, want one watching %s/.git", stamps, place)
		}
		return stamps
	}
	t.Run("made", func(t *testing.T) {
		place := t.TempDir()
		stamps := stampOf(t, place)
		if stampsChanged(stamps) {
			t.Fatal("changed without a change")
		}
		if err := os.Mkdir(filepath.Join(place, ".git"), 0o700); err != nil {
			t.Fatal(err)
		}
		if !stampsChanged(stamps) {
			t.Error("a .git made in a writable place went unnoticed")
		}
	})
	t.Run("same tick", func(t *testing.T) {
		place := t.TempDir()
		fi, _ := os.Stat(place)
		stamps := stampOf(t, place) // just made: racy
		if err := os.Mkdir(filepath.Join(place, ".git"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(place, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if !stampsChanged(stamps) {
			t.Error("a .git made in the stamp's clock tick went unnoticed")
		}
	})
	t.Run("time set back", func(t *testing.T) {
		place := t.TempDir()
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(place, old, old); err != nil {
			t.Fatal(err)
		}
		stamps := stampOf(t, place)
		if err := os.Mkdir(filepath.Join(place, ".git"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(place, old, old); err != nil {
			t.Fatal(err)
		}
		if stampsChanged(stamps) {
			t.Error("the .git was looked for although the place's time did not change (two stats per check)")
		}
		if err := os.WriteFile(filepath.Join(place, "new"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if !stampsChanged(stamps) {
			t.Error("the .git went unnoticed after the place changed")
		}
	})
}
