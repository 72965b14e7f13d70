package store

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// closedDB creates a database at dir/olly.db with one session and closes it.
func closedDB(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, FileName)
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "a")
	appendText(t, s, "a", "user_message", "hello there")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		break_ func(t *testing.T, path string)
		ok     bool
		want   func(r *CheckReport) bool
	}{
		{"sound", func(*testing.T, string) {}, true, func(r *CheckReport) bool { return r.Version == SchemaVersion() }},
		{"newer", func(t *testing.T, path string) {
			db := rawDB(t, path)
			defer db.Close()
			db.Exec("PRAGMA user_version = 42")
		}, false, func(r *CheckReport) bool { return r.Version == 42 && len(r.Integrity) == 0 }},
		{"orphan rows", func(t *testing.T, path string) {
			db := rawDB(t, path) // foreign keys off on a raw connection
			defer db.Close()
			if _, err := db.Exec(`INSERT INTO events (session_id, seq, parent_seq, type, payload, created_at)
				VALUES ('ghost', 1, 0, 'x', '{}', 0)`); err != nil {
				t.Fatal(err)
			}
		}, false, func(r *CheckReport) bool {
			return len(r.ForeignKeys) == 1 && strings.Contains(r.ForeignKeys[0], "events row")
		}},
		{"not a database", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("garbage ", 1000)), 0o600)
		}, false, func(r *CheckReport) bool { return len(r.Integrity) == 1 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := closedDB(t, t.TempDir())
			tc.break_(t, path)
			before, _ := os.ReadFile(path)
			r, err := Check(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() != tc.ok || !tc.want(r) {
				t.Errorf("report %+v (ok %v)", r, r.OK())
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("Check changed the file")
			}
		})
	}
	if _, err := Check(ctx, filepath.Join(t.TempDir(), "none.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := closedDB(t, dir)
	// Online: another store has the database open while it is copied.
	live, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	appendText(t, live, "a", "assistant_text", "written before the backup")
	dest := BackupName(path, time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC))
	if filepath.Base(dest) != "olly.backup-20260102-150405.db" {
		t.Errorf("backup name %s", dest)
	}
	if err := Backup(ctx, path, dest); err != nil {
		t.Fatal(err)
	}
	copyStore, err := Open(ctx, dest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer copyStore.Close()
	evs, err := copyStore.Events(ctx, "a", 0, 0)
	if err != nil || len(evs) != 2 {
		t.Fatalf("backup holds %d events, %v", len(evs), err)
	}
	if err := Backup(ctx, path, dest); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("overwrote an existing backup: %v", err)
	}
}

func TestMoveAside(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the in-use probe is POSIX locks only")
	}
	dir := t.TempDir()
	path := closedDB(t, dir)
	// Another process holds the database open: refuse.
	child := childCmd(t, "generate", path, "a")
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("child: %q %s", line, child.Stderr)
	}
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	if _, err := MoveAside(path, now); !errors.Is(err, ErrInUse) {
		t.Errorf("moved a database in use: %v", err)
	}
	stdin.Close()
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v %s", err, child.Stderr)
	}
	// Leave a -wal behind as a crash would, to see it moved along.
	os.WriteFile(path+"-wal", nil, 0o600)
	moved, err := MoveAside(path, now)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "olly.reset-20260102-150405.db")
	if len(moved) < 2 || moved[0] != want || moved[1] != want+"-wal" {
		t.Errorf("moved %v", moved)
	}
	if exists(path) || exists(path+"-wal") {
		t.Error("originals still there")
	}
	// The moved database still opens with its data.
	s, err := Open(context.Background(), want, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if evs, _ := s.Events(context.Background(), "a", 0, 0); len(evs) != 1 {
		t.Errorf("moved database has %d events", len(evs))
	}
	s.Close()
	// A second reset in the same second does not overwrite the first.
	closedDB(t, dir)
	moved, err = MoveAside(path, now)
	if err != nil || len(moved) == 0 || moved[0] == want || !exists(want) {
		t.Errorf("second move: %v %v", moved, err)
	}
	if _, err := MoveAside(filepath.Join(dir, "none.db"), now); err == nil {
		t.Error("moved a missing file")
	}
}
