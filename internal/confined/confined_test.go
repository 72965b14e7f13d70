package confined

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/workspace"
)

// tree makes a workspace with a folder "kind" and, beside it, a folder
// outside the workspace holding a secret.
type tree struct {
	root, dir, outside string
	ws                 *workspace.Workspace
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	tr.dir = filepath.Join(tr.root, "kind")
	for _, d := range []string{tr.dir, tr.outside, filepath.Join(tr.root, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(tr.dir, "ok.md"), "fine")
	write(t, filepath.Join(tr.outside, "secret"), "SECRET")
	write(t, filepath.Join(tr.root, "other", "beside.md"), "in the workspace, not the folder")
	ws, err := workspace.New([]string{tr.root})
	if err != nil {
		t.Fatal(err)
	}
	tr.ws = ws
	return tr
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func TestReadFileGuards(t *testing.T) {
	tr := newTree(t)
	link(t, filepath.Join(tr.outside, "secret"), filepath.Join(tr.dir, "out.md"))
	link(t, filepath.Join(tr.root, "other", "beside.md"), filepath.Join(tr.dir, "beside.md"))
	link(t, "ok.md", filepath.Join(tr.dir, "inside.md"))
	link(t, filepath.Join(tr.dir, "missing"), filepath.Join(tr.dir, "dangling.md"))
	if err := os.Mkdir(filepath.Join(tr.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	inWS := Scope{InWorkspace: true, Workspace: tr.ws}
	both := Scope{Dir: tr.dir, InWorkspace: true, Workspace: tr.ws}
	for _, c := range []struct {
		name, file string
		scope      Scope
		want       string // the text, or "" for an error
		err        error
	}{
		{"plain", "ok.md", both, "fine", nil},
		{"link inside", "inside.md", both, "fine", nil},
		{"link out of the workspace", "out.md", inWS, "", ErrOutsideWorkspace},
		{"link out of the folder", "beside.md", both, "", ErrOutside},
		{"link out of the folder, workspace only", "beside.md", inWS, "in the workspace, not the folder", nil},
		{"the person's own follows links anywhere", "out.md", Scope{}, "SECRET", nil},
		{"no workspace", "ok.md", Scope{InWorkspace: true}, "", ErrOutsideWorkspace},
		{"dangling link", "dangling.md", both, "", fs.ErrNotExist},
		{"missing", "none.md", both, "", fs.ErrNotExist},
		{"a directory", "sub", both, "", ErrNotRegular},
		{"dot-dot", "../../outside/secret", Scope{Dir: tr.dir}, "", ErrOutside},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadFile(filepath.Join(tr.dir, c.file), c.scope, 100)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// A huge file is refused by its size, or its head read, never read whole.
func TestHugeFile(t *testing.T) {
	tr := newTree(t)
	p := filepath.Join(tr.dir, "huge.md")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 40 // sparse: takes no space
	if err := f.Truncate(size); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	if _, err := ReadFile(p, Scope{Dir: tr.dir}, 1000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1099511627776 bytes") {
		t.Errorf("ReadFile: %v", err)
	}
	data, got, cut, err := ReadHead(p, Scope{Dir: tr.dir}, 1000)
	if err != nil || len(data) != 1000 || got != size || !cut {
		t.Errorf("ReadHead: %d bytes, size %d, cut %v, %v", len(data), got, cut, err)
	}
	data, got, cut, err = ReadHead(filepath.Join(tr.dir, "ok.md"), Scope{Dir: tr.dir}, 4)
	if err != nil || string(data) != "fine" || got != 4 || cut {
		t.Errorf("ReadHead of a file at the cap: %q, size %d, cut %v, %v", data, got, cut, err)
	}
}

func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode: run as another user to check an unreadable file")
	}
	tr := newTree(t)
	p := filepath.Join(tr.dir, "locked.md")
	write(t, p, "locked")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, Scope{Dir: tr.dir}, 100); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("err = %v, want a permission error", err)
	}
}

func TestJoin(t *testing.T) {
	for _, rel := range []string{"", "/etc/passwd"} {
		if _, err := Join("/d", rel); err == nil {
			t.Errorf("Join(%q) accepted", rel)
		}
	}
	if p, err := Join("/d", "a/b.md"); err != nil || p != filepath.Join("/d", "a", "b.md") {
		t.Errorf("Join = %q, %v", p, err)
	}
}

func TestPlaces(t *testing.T) {
	tr := newTree(t)
	var got []string
	for _, p := range Places(tr.ws, "/cfg", "skills") {
		got = append(got, p.Source+"="+p.Dir)
		if (p.Source == SourceUser) == p.Scope.InWorkspace {
			t.Errorf("%s: scope %+v", p.Source, p.Scope)
		}
	}
	want := "project=" + filepath.Join(tr.root, ".olly", "skills") + " claude=" + filepath.Join(tr.root, ".claude", "skills") + " user=/cfg/skills"
	if strings.Join(got, " ") != want {
		t.Errorf("Places = %s, want %s", strings.Join(got, " "), want)
	}
	if got := Places(nil, "", "skills"); len(got) != 0 {
		t.Errorf("no workspace, no user dir: %v", got)
	}
}

// Whatever relative path a model or a file gives, a read confined to the
// folder never returns what is outside it.
func FuzzReadInside(f *testing.F) {
	for _, s := range []string{"ok.md", "../outside/secret", "up/secret", "..", ".", "a/../ok.md", "loop", "//x", "./up/../ok.md"} {
		f.Add(s)
	}
	tr := newTreeF(f)
	f.Fuzz(func(t *testing.T, rel string) {
		p, err := Join(tr.dir, rel)
		if err != nil {
			return
		}
		data, err := ReadFile(p, Scope{Dir: tr.dir}, 100)
		if err == nil && strings.Contains(string(data), "SECRET") {
			t.Fatalf("read %q outside the folder: %q", rel, data)
		}
		if err == nil {
			if real, rerr := filepath.EvalSymlinks(p); rerr != nil || !within(tr.dir, real) {
				t.Fatalf("read %q at %s (%v)", rel, real, rerr)
			}
		}
	})
}

func newTreeF(f *testing.F) tree {
	base := f.TempDir()
	tr := tree{dir: filepath.Join(base, "kind"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{tr.dir, tr.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for p, text := range map[string]string{filepath.Join(tr.dir, "ok.md"): "fine", filepath.Join(tr.outside, "secret"): "SECRET"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for target, p := range map[string]string{tr.outside: filepath.Join(tr.dir, "up"), filepath.Join(tr.dir, "loop"): filepath.Join(tr.dir, "loop")} {
		if err := os.Symlink(target, p); err != nil {
			f.Fatal(err)
		}
	}
	return tr
}
