package shell

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteStateFileRaceWithLink plays a job of a bash that keeps planting
// a symbolic link at the temporary name olly writes a state file through
// (the bash's own folder is writable to that bash's jobs): whatever the
// interleaving, olly never writes through the link, neither creating the
// file it names (dangling) nor truncating one that exists.
func TestWriteStateFileRaceWithLink(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "sync")
	made, victim := filepath.Join(dir, "made"), filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Symlink([]string{made, victim}[i%2], dst+".tmp")
		}
	}()
	for range 2000 {
		err := writeStateFile(dst, func(w io.Writer) error {
			_, err := io.WriteString(w, "payload")
			return err
		})
		if err != nil && !errors.Is(err, os.ErrExist) {
			t.Errorf("writeStateFile: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	if _, err := os.Lstat(made); err == nil {
		t.Error("a dangling link at the temporary name was followed: its target was created")
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Errorf("a link at the temporary name was followed: its target now holds %q (%v)", b, err)
	}
}

// TestHandOverDoesNotFollowLinks: links the workspace-write bash's own
// commands planted at its sync file and at the name beside it are not
// followed when olly writes the variables of a read-only command's state
// there; the hand-over still happens.
func TestHandOverDoesNotFollowLinks(t *testing.T) {
	m, _, outside, _ := sandboxed(t)
	sh := m.Session("s")
	victim, made := filepath.Join(outside, "victim"), filepath.Join(outside, "made")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, sh, `ln -s `+singleQuote(victim)+` "$__olly_d/sync"; ln -s `+singleQuote(made)+` "$__olly_d/sync.tmp"`, readWrite)
	mustRun(t, sh, `X=$'\nimport os\n'`, readOnly)
	res := mustRun(t, sh, `printf '%q\n' "$X"`, readWrite)
	if res.Output != `$'\nimport os\n'` {
		t.Errorf("the variable did not carry over: %s", res.Text())
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Errorf("the link at sync was followed: its target now holds %q (%v)", b, err)
	}
	if _, err := os.Lstat(made); err == nil {
		t.Error("the link at sync.tmp was followed: its target was created")
	}
}
