package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMigrationsNumbered(t *testing.T) {
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || SchemaVersion() != len(ms) {
		t.Fatalf("SchemaVersion() = %d with %d migrations", SchemaVersion(), len(ms))
	}
	for i, m := range ms {
		if m.version != i+1 {
			t.Errorf("migration %d is %s", i+1, m.name)
		}
		code := strings.ToUpper(stripComments(m.sql))
		for _, forbidden := range []string{"DROP ", "DELETE FROM", "RENAME "} {
			if strings.Contains(code, forbidden) && !strings.Contains(code, "AFTER "+forbidden) {
				t.Errorf("%s contains %q: migrations are additive only", m.name, forbidden)
			}
		}
	}
}

// stripComments removes -- comments from SQL.
func stripComments(sql string) string {
	var b strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func TestOpenFromEmpty(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "dir", FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var version, appID int
	var mode string
	if err := s.r.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	s.r.QueryRow("PRAGMA application_id").Scan(&appID)
	s.r.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if version != SchemaVersion() || appID != applicationID || mode != "wal" {
		t.Errorf("version %d appID %#x mode %s, want %d %#x wal", version, appID, mode, SchemaVersion(), applicationID)
	}
	for _, table := range []string{"sessions", "events", "checkpoints", "file_snapshots", "models",
		"prompt_history", "prompt_history_fts", "events_fts", "titles_fts", "embedding_models", "embeddings"} {
		var n int
		if err := s.r.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = ?", table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: n=%d err=%v", table, n, err)
		}
	}
	var fk int
	s.w.QueryRow("PRAGMA foreign_keys").Scan(&fk)
	if fk != 1 {
		t.Error("foreign keys are off on the writer")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening applies nothing and keeps the data.
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	s.r.QueryRow("PRAGMA user_version").Scan(&version)
	if version != SchemaVersion() {
		t.Errorf("version after reopen = %d", version)
	}
}

func TestOpenConcurrentFirstOpen(t *testing.T) {
	// Two stores opening a new file at once both migrate it safely.
	path := filepath.Join(t.TempDir(), FileName)
	errs := make(chan error, 2)
	stores := make(chan *Store, 2)
	for range 2 {
		go func() {
			s, err := Open(context.Background(), path, Options{})
			errs <- err
			stores <- s
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Open: %v", err)
		}
		if s := <-stores; s != nil {
			s.Close()
		}
	}
}

// rawDB opens path directly (no migrations) for a test to set up a file.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOpenRefusesAndLeavesFileUntouched(t *testing.T) {
	type setup func(t *testing.T, path string)
	cases := []struct {
		name  string
		setup setup
		check func(t *testing.T, err error)
	}{
		{
			name: "newer schema version",
			setup: func(t *testing.T, path string) {
				s, err := Open(context.Background(), path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				newSession(t, s, "keep-me")
				if _, err := s.w.Exec("PRAGMA user_version = 99"); err != nil {
					t.Fatal(err)
				}
				s.Close()
			},
			check: func(t *testing.T, err error) {
				var ve *VersionError
				if !errors.As(err, &ve) || ve.Have != 99 || ve.Known != SchemaVersion() {
					t.Fatalf("err = %v, want VersionError 99/%d", err, SchemaVersion())
				}
				for _, want := range []string{"99", "newer olly", "Upgrade olly", "--db"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q lacks %q", err, want)
					}
				}
			},
		},
		{
			name: "not a database",
			setup: func(t *testing.T, path string) {
				junk := bytes.Repeat([]byte("this is not sqlite\n"), 300)
				if err := os.WriteFile(path, junk, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			check: wantDamaged,
		},
		{
			name: "truncated header",
			setup: func(t *testing.T, path string) {
				if err := os.WriteFile(path, []byte("SQLite format 3\x00\x10\x00"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			check: wantDamaged,
		},
		{
			name: "malformed schema page",
			setup: func(t *testing.T, path string) {
				s, err := Open(context.Background(), path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				// Page 1 holds the schema's b-tree after the 100-byte file
				// header; scribble over its cell area.
				for i := 1000; i < 4096; i++ {
					b[i] = 0xA5
				}
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			check: wantDamaged,
		},
		{
			name: "another program's database",
			setup: func(t *testing.T, path string) {
				db := rawDB(t, path)
				if _, err := db.Exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
					t.Fatal(err)
				}
				db.Close()
			},
			check: func(t *testing.T, err error) {
				var fe *ForeignError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), "not created by olly") {
					t.Fatalf("err = %v, want ForeignError", err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			tc.setup(t, path)
			before := snapshotFiles(t, path)
			s, err := Open(context.Background(), path, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			tc.check(t, err)
			if after := snapshotFiles(t, path); !bytes.Equal(before, after) {
				t.Error("the database file changed")
			}
		})
	}
}

func wantDamaged(t *testing.T, err error) {
	t.Helper()
	var de *DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v (%T), want DamagedError", err, err)
	}
	for _, want := range []string{"damaged", "olly db check", "olly db reset", "Nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// snapshotFiles returns the bytes of path (its -wal must not exist: the
// stores in these tests closed cleanly).
func snapshotFiles(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if wal, _ := os.ReadFile(path + "-wal"); len(wal) > 0 {
			t.Logf("note: %s-wal exists (%d bytes)", path, len(wal))
		}
	}
	return b
}
