package trust

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestTrustBoundToFingerprint(t *testing.T) {
	dir := t.TempDir()
	ws := t.TempDir()
	s, err := Open(filepath.Join(dir, "state", "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	fp := Fingerprint(map[string]any{"command": "node", "args": []string{"server.js"}})
	if s.Trusted(ws, KindMCP, "srv", fp) {
		t.Fatal("trusted before Trust")
	}
	if err := s.Trust(ws, KindMCP, "srv", fp); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(ws, KindMCP, "srv", fp) {
		t.Fatal("not trusted after Trust")
	}
	// Another process sees it (the file is re-read).
	s2, err := Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !s2.Trusted(ws, KindMCP, "srv", fp) {
		t.Fatal("a second store does not see the trust")
	}
	changed := Fingerprint(map[string]any{"command": "node", "args": []string{"evil.js"}})
	if s.Trusted(ws, KindMCP, "srv", changed) {
		t.Fatal("a changed fingerprint is trusted")
	}
	if s.Trusted(t.TempDir(), KindMCP, "srv", fp) {
		t.Fatal("trusted in another workspace")
	}
	if s.Trusted(ws, KindHook, "srv", fp) {
		t.Fatal("trusted as another kind")
	}
	if err := s.Revoke(ws, KindMCP, "srv"); err != nil {
		t.Fatal(err)
	}
	if s.Trusted(ws, KindMCP, "srv", fp) {
		t.Fatal("trusted after Revoke")
	}
	if s.Trusted(ws, KindMCP, "srv", "") {
		t.Fatal("empty fingerprint trusted")
	}
}

func TestFingerprintStable(t *testing.T) {
	a := Fingerprint(map[string]string{"b": "2", "a": "1"})
	b := Fingerprint(map[string]string{"a": "1", "b": "2"})
	if a != b || a == "" {
		t.Fatalf("fingerprints differ: %q %q", a, b)
	}
}

func TestBrokenFileIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil {
		t.Fatal("Open accepted a broken file")
	}
}

func TestSymlinkedWorkspaceIsTheSame(t *testing.T) {
	ws := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	s, _ := Open(filepath.Join(t.TempDir(), "trust.json"))
	if err := s.Trust(link, KindMCP, "x", "f"); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(ws, KindMCP, "x", "f") {
		t.Fatal("trust via a symlink does not apply to the real folder")
	}
}

func TestConcurrentStoresKeepEveryDecision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	ws := t.TempDir()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Separate Stores stand for separate processes: only the file
			// lock keeps their read-modify-write cycles apart.
			s, err := Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			if err := s.Trust(ws, KindHook, string(rune('a'+i)), "x"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Entries(ws)
	if err != nil || len(got) != 8 {
		t.Fatalf("Entries = %d (%v), want 8: a decision was lost", len(got), err)
	}
}

// TestDecline: "never ask again" holds for one fingerprint, is never a
// trust (for this olly or an older one that reads only the entries), and
// trusting later replaces it.
func TestDecline(t *testing.T) {
	ws := t.TempDir()
	s, err := Open(filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	fp, other := Fingerprint("v1"), Fingerprint("v2")
	if err := s.Trust(ws, KindHook, ".olly/settings.json", other); err != nil {
		t.Fatal(err)
	}
	if err := s.Decline(ws, KindHook, ".olly/settings.json", fp); err != nil {
		t.Fatal(err)
	}
	if !s.Declined(ws, KindHook, ".olly/settings.json", fp) || s.Declined(ws, KindHook, ".olly/settings.json", other) {
		t.Fatal("Declined does not answer for exactly the declined fingerprint")
	}
	if s.Trusted(ws, KindHook, ".olly/settings.json", fp) || s.Trusted(ws, KindHook, ".olly/settings.json", other) {
		t.Fatal("a declined program is trusted")
	}
	if es, err := s.Entries(ws); err != nil || len(es) != 0 {
		t.Fatalf("entries after a decline = %v, %v; want none (older versions read only these)", es, err)
	}
	if err := s.Trust(ws, KindHook, ".olly/settings.json", fp); err != nil {
		t.Fatal(err)
	}
	if s.Declined(ws, KindHook, ".olly/settings.json", fp) || !s.Trusted(ws, KindHook, ".olly/settings.json", fp) {
		t.Fatal("trusting after a decline did not replace it")
	}
	if err := s.Decline(ws, KindHook, "x", ""); err == nil {
		t.Fatal("an empty fingerprint was declined")
	}
}
