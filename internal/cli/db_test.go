package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/store"
)

// newDB creates a database with one session at dir/olly.db.
func newDB(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "olly.db")
	s, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(context.Background(), &store.Session{ID: "a", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func runOlly(t *testing.T, in string, tty bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, out, errOut := Test(in)
	ios.StdinTTY = tty
	code = Execute(&Factory{IO: ios}, args)
	return code, out.String(), errOut.String()
}

func TestDBPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(dbEnv, filepath.Join(dir, "env.db"))
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"flag wins", []string{"db", "--db", filepath.Join(dir, "flag.db"), "path"}, filepath.Join(dir, "flag.db"), 0},
		{"environment", []string{"db", "path"}, filepath.Join(dir, "env.db"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runOlly(t, "", false, tc.args...)
			if code != tc.code || strings.TrimSpace(out) != tc.want {
				t.Errorf("code %d out %q err %q", code, out, errOut)
			}
		})
	}
	t.Run("data directory", func(t *testing.T) {
		ios, out, errOut := Test("")
		data := t.TempDir()
		f := &Factory{IO: ios, HomeDir: t.TempDir(), Environ: []string{"XDG_DATA_HOME=" + data}}
		code := Execute(f, []string{"--cwd", t.TempDir(), "db", "path"})
		want := filepath.Join(data, "olly", "olly.db")
		if code != 0 || strings.TrimSpace(out.String()) != want {
			t.Errorf("code %d out %q err %q, want %s", code, out, errOut, want)
		}
	})
	t.Run("broken settings do not hide the database", func(t *testing.T) {
		ios, out, errOut := Test("")
		home, data, ws := t.TempDir(), t.TempDir(), t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, ".config", "olly"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".config", "olly", "config.yaml"), []byte("agent: [\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f := &Factory{IO: ios, HomeDir: home, Environ: []string{"XDG_DATA_HOME=" + data}}
		code := Execute(f, []string{"--cwd", ws, "db", "path"})
		if want := filepath.Join(data, "olly", "olly.db"); code != 0 || strings.TrimSpace(out.String()) != want {
			t.Errorf("code %d out %q err %q, want %s", code, out, errOut, want)
		}
	})
}

func TestDBCheck(t *testing.T) {
	path := newDB(t, t.TempDir())
	code, out, errOut := runOlly(t, "", false, "db", "--db", path, "check")
	if code != 0 || !strings.Contains(out, "integrity:      ok") || !strings.Contains(out, "foreign keys:   ok") {
		t.Fatalf("sound db: code %d out %q err %q", code, out, errOut)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runOlly(t, "", false, "db", "--db", path, "check")
	if code != ExitFailure || !strings.Contains(out, "olly db reset") || !strings.Contains(errOut, "has problems") {
		t.Errorf("damaged db: code %d out %q err %q", code, out, errOut)
	}
	code, _, errOut = runOlly(t, "", false, "db", "--db", filepath.Join(t.TempDir(), "none.db"), "check")
	if code != ExitFailure || !strings.Contains(errOut, "no database at") {
		t.Errorf("missing db: code %d err %q", code, errOut)
	}
}

func TestDBBackup(t *testing.T) {
	dir := t.TempDir()
	path := newDB(t, dir)
	dest := filepath.Join(dir, "copy.db")
	code, out, errOut := runOlly(t, "", false, "db", "--db", path, "backup", dest)
	if code != 0 || !strings.Contains(out, "backed up") {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
	if r, err := store.Check(context.Background(), dest); err != nil || !r.OK() {
		t.Errorf("backup check: %+v %v", r, err)
	}
	code, _, errOut = runOlly(t, "", false, "db", "--db", path, "backup", dest)
	if code != ExitFailure || !strings.Contains(errOut, "exists") {
		t.Errorf("overwrite: code %d err %q", code, errOut)
	}
	// Without FILE: a timestamped name beside the database.
	code, out, _ = runOlly(t, "", false, "db", "--db", path, "backup")
	if code != 0 || !strings.Contains(out, filepath.Join(dir, "olly.backup-")) {
		t.Errorf("default name: code %d out %q", code, out)
	}
}

func TestDBReset(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		tty    bool
		args   []string
		code   int
		moved  bool
		output string
	}{
		{"no terminal, no --yes", "", false, nil, ExitUsage, false, "pass --yes"},
		{"--yes", "", false, []string{"--yes"}, 0, true, "moved to"},
		{"confirmed at the prompt", "y\n", true, nil, 0, true, "moved to"},
		{"declined at the prompt", "n\n", true, nil, 0, false, "Nothing was moved"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := newDB(t, dir)
			args := append([]string{"db", "--db", path, "reset"}, tc.args...)
			code, out, errOut := runOlly(t, tc.in, tc.tty, args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.output) {
				t.Fatalf("code %d out %q err %q", code, out, errOut)
			}
			_, err := os.Stat(path)
			if moved := err != nil; moved != tc.moved {
				t.Errorf("moved = %v, want %v", moved, tc.moved)
			}
			if tc.moved {
				entries, _ := filepath.Glob(filepath.Join(dir, "olly.reset-*.db"))
				if len(entries) != 1 {
					t.Errorf("moved files: %v", entries)
				}
			}
		})
	}
	code, _, errOut := runOlly(t, "", false, "db", "--db", filepath.Join(t.TempDir(), "none.db"), "reset", "--yes")
	if code != ExitFailure || !strings.Contains(errOut, "nothing to reset") {
		t.Errorf("missing db: code %d err %q", code, errOut)
	}
}
