package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

// The places a workspace-write command may change are real paths when
// olly accepts them; a command that can write the folder holding one can
// replace it with a symbolic link. The next bash (the stamps see another
// inode) must not follow the link: its target stays out of reach.

// swapForLink replaces dir with a link to target from a sandboxed command
// (which may: dir's parent is writable to it) and checks that it did.
func swapForLink(t *testing.T, sh *Shell, dir, target string, opts RunOptions) {
	t.Helper()
	res := mustRun(t, sh, `rm -rf "`+dir+`" && ln -s "`+target+`" "`+dir+`"`, opts)
	if fi, err := os.Lstat(dir); res.ExitCode != 0 || err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the command could not replace %s with a link (the test proves nothing then): %s", dir, res.Text())
	}
}

// noWriteThrough runs a command writing through dir (now a link to
// target) and fails if target was written.
func noWriteThrough(t *testing.T, sh *Shell, dir, target string, opts RunOptions) {
	t.Helper()
	res := mustRun(t, sh, `echo pwned >> "`+dir+`/canary"; echo pwned > "`+dir+`/new"`, opts)
	if b, _ := os.ReadFile(filepath.Join(target, "canary")); string(b) != "original\n" {
		t.Fatalf("the link's target was written through %s: canary is %q\n%s", dir, b, res.Text())
	}
	if _, err := os.Stat(filepath.Join(target, "new")); err == nil {
		t.Fatalf("a file was created in the link's target through %s:\n%s", dir, res.Text())
	}
}

// target returns a folder outside every writable place holding a canary.
func swapTarget(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(dir, "canary"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAllowedDirSwappedForLinkIsNotWritable: a directory a person allowed
// (or an extra root), inside another allowed one, replaced by a link.
func TestAllowedDirSwappedForLinkIsNotWritable(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s1")
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	inner := filepath.Join(parent, "inner")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	target := swapTarget(t)
	opts := RunOptions{Writable: []string{parent, inner}}
	if res := mustRun(t, sh, `echo ok > "`+inner+`/f"`, opts); res.ExitCode != 0 {
		t.Fatalf("the allowed directory is not writable: %s", res.Text())
	}
	swapForLink(t, sh, inner, target, opts)
	noWriteThrough(t, sh, inner, target, opts)
}

// TestTmpDirSwappedForLinkIsNotWritable: the session's TMPDIR, where the
// folder holding it is writable (a person allowed it).
func TestTmpDirSwappedForLinkIsNotWritable(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	t.Setenv("TMPDIR", tmp)
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s1")
	target := swapTarget(t)
	opts := RunOptions{Writable: []string{tmp}}
	res := mustRun(t, sh, `echo "$TMPDIR"`, opts)
	dir := strings.TrimSpace(res.Output)
	if filepath.Dir(dir) != tmp {
		t.Fatalf("TMPDIR %q is not in %s", dir, tmp)
	}
	swapForLink(t, sh, dir, target, opts)
	noWriteThrough(t, sh, dir, target, opts)
}

// TestScratchDirOnlyTheSessionsOwn: of ScratchDir (inside a protected
// folder) a command may write only its session's allowed directory:
// not ScratchDir itself, so not another session's directory, and it
// cannot replace its own with a link.
func TestScratchDirOnlyTheSessionsOwn(t *testing.T) {
	state, _ := filepath.EvalSymlinks(t.TempDir())
	base := filepath.Join(state, "scratch")
	mine, other := filepath.Join(base, "s1"), filepath.Join(base, "s2")
	for _, d := range []string{mine, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sb := sandbox.New("")
	if !sb.Status().Active() {
		t.Skipf("no sandbox here (%s): needs Landlock (Linux 5.13+)", sb.Status().Reason)
	}
	m, _ := newTestManager(t, func(o *ManagerOptions) {
		o.Sandbox = sb
		o.SandboxSpec = sandbox.Spec{DenyRead: []string{state}}
		o.ScratchDir = base
	})
	sh := m.Session("s1")
	opts := RunOptions{Writable: []string{mine}}
	if res := mustRun(t, sh, `echo ok > "`+mine+`/f"`, opts); res.ExitCode != 0 {
		t.Fatalf("the session's scratch directory is not writable: %s", res.Text())
	}
	for _, cmd := range []string{
		`touch "` + base + `/planted"`,
		`echo x > "` + other + `/f"`,
		`rm -rf "` + mine + `" && ln -s /tmp "` + mine + `"`,
		`mv "` + mine + `" "` + base + `/moved"`,
	} {
		if res := mustRun(t, sh, cmd, opts); res.ExitCode == 0 {
			t.Errorf("%s: succeeded", cmd)
		}
	}
	if fi, err := os.Lstat(mine); err != nil || !fi.IsDir() {
		t.Fatalf("the session's scratch directory was replaced: %v", err)
	}
	for _, p := range []string{filepath.Join(base, "planted"), filepath.Join(other, "f")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	// A link planted by something else (another session, a job left
	// running) in place of the allowed directory is not followed either.
	target := swapTarget(t)
	if err := os.RemoveAll(mine); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, mine); err != nil {
		t.Fatal(err)
	}
	noWriteThrough(t, sh, mine, target, opts)
}

// TestReadOnlyBashKeptWhenWritableChanges: the read-only bash cannot
// write the workspace-write bash's places, so a directory allowed later
// does not replace it.
func TestReadOnlyBashKeptWhenWritableChanges(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s1")
	ro := RunOptions{Policy: sandbox.ReadOnly}
	first := mustRun(t, sh, "echo $$", ro).Output
	extra, _ := filepath.EvalSymlinks(t.TempDir())
	mustRun(t, sh, "true", RunOptions{Writable: []string{extra}})
	ro.Writable = []string{extra}
	if again := mustRun(t, sh, "echo $$", ro).Output; again != first {
		t.Fatalf("the read-only bash was replaced (%q, then %q) when a directory was allowed", first, again)
	}
}

// TestLinkedStateFolderStillWorks: where the folder olly keeps the
// shells' state in lies behind a symbolic link (macOS's /var, an
// XDG_RUNTIME_DIR on a linked path), the bashes' own folders are still
// granted (as real paths), so the state carries over.
func TestLinkedStateFolderStillWorks(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	link := filepath.Join(t.TempDir(), "runtime")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", link)
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s1")
	mustRun(t, sh, "export CARRIED=yes", RunOptions{})
	res := mustRun(t, sh, `echo "carried=$CARRIED"`, RunOptions{Policy: sandbox.ReadOnly})
	if !strings.Contains(res.Output, "carried=yes") {
		t.Fatalf("the state did not carry over: %s", res.Text())
	}
}

// TestSwappedPlaceNotGrantedToNewBash: a live bash started for the same
// request is reused without resolving its places again (fits); once a
// place is replaced by a link, the bash that replaces it (the stamps see
// another inode) is started under the request pinned again, without that
// place: whether the live bash was current or waited idle meanwhile.
func TestSwappedPlaceNotGrantedToNewBash(t *testing.T) {
	for _, idle := range []bool{false, true} {
		t.Run(map[bool]string{false: "current", true: "idle"}[idle], func(t *testing.T) {
			m, _, _, _ := sandboxed(t)
			sh := m.Session("s1")
			parent, _ := filepath.EvalSymlinks(t.TempDir())
			inner := filepath.Join(parent, "inner")
			if err := os.Mkdir(inner, 0o755); err != nil {
				t.Fatal(err)
			}
			target := swapTarget(t)
			opts := RunOptions{Writable: []string{parent, inner}}
			first := mustRun(t, sh, `echo $$ > "`+inner+`/f"`, opts)
			if first.ExitCode != 0 {
				t.Fatalf("the allowed directory is not writable: %s", first.Text())
			}
			started := sh.proc
			if again := mustRun(t, sh, "true", opts); again.ExitCode != 0 || sh.proc != started {
				t.Fatalf("the live bash was not reused for the same request (the fast path is not exercised): %s", again.Text())
			}
			if idle {
				// Replaced while its bash waits idle (by a job an earlier
				// command left running, say).
				mustRun(t, sh, "true", RunOptions{Policy: sandbox.ReadOnly})
				if sh.idle != started {
					t.Fatalf("the workspace-write bash is not waiting idle")
				}
				if err := os.RemoveAll(inner); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, inner); err != nil {
					t.Fatal(err)
				}
			} else {
				swapForLink(t, sh, inner, target, opts)
			}
			mustRun(t, sh, "true", opts)
			if sh.proc == started {
				t.Fatalf("the bash whose allowed directory was replaced by a link still runs commands")
			}
			if slices.Contains(sh.proc.spec.Writable, inner) || !sh.proc.pinLost {
				t.Fatalf("the new bash was granted %s, now a link to %s: %q", inner, target, sh.proc.spec.Writable)
			}
			noWriteThrough(t, sh, inner, target, opts)
		})
	}
}

// TestPlaceUnpinnedThenRealIsGranted: a place that did not resolve to
// itself when the bash started (dropped) is granted by the bash that
// follows once it does: a bash that lost a place is not reused for the
// same request without pinning it again.
func TestPlaceUnpinnedThenRealIsGranted(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s1")
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	inner := filepath.Join(parent, "inner")
	if err := os.Symlink(t.TempDir(), inner); err != nil {
		t.Fatal(err)
	}
	opts := RunOptions{Writable: []string{inner}}
	if res := mustRun(t, sh, `echo x > "`+inner+`/f"`, opts); res.ExitCode == 0 {
		t.Fatalf("a place that is a link was writable: %s", res.Text())
	}
	if err := os.Remove(inner); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if res := mustRun(t, sh, `echo x > "`+inner+`/f"`, opts); res.ExitCode != 0 {
		t.Fatalf("the place, a real directory now, is not writable: %s", res.Text())
	}
}
