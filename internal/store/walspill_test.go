package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedSpillSurvivesCrash guards the writer's path to the WAL
// against anything that delays a write past COMMIT (a custom VFS holding a
// frame header back lost this case). A transaction larger than the page
// cache spills pages to the WAL before it commits; changing a spilled page
// afterwards makes SQLite rewrite the frames' checksums at COMMIT, which
// ends with a lone frame-header write. Once COMMIT has returned, a copy of
// the database and its WAL (what a crash leaves) must recover every row.
func TestCommittedSpillSurvivesCrash(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	conn, err := s.w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const rows = 600
	stmts := []string{
		"PRAGMA cache_size(20)",  // the transaction below outgrows it: pages spill to the WAL
		"PRAGMA cache_spill(20)", // (the writer spills only past 4,096 pages)
		"CREATE TABLE spill (id INTEGER PRIMARY KEY, v INTEGER, pad BLOB)",
		"BEGIN IMMEDIATE",
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
			INSERT INTO spill SELECT i, 0, randomblob(400) FROM n`, rows),
		"UPDATE spill SET v = id", // changes pages already spilled
		"COMMIT",
		"PRAGMA cache_size(64)",
		"PRAGMA cache_spill(4096)",
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	// What a crash right after COMMIT leaves: the database and its WAL (the
	// shared-memory index is rebuilt from the WAL on open).
	dir := t.TempDir()
	for _, suffix := range []string{"-wal", ""} {
		copyFile(t, s.file+suffix, filepath.Join(dir, FileName+suffix))
	}
	db, err := sql.Open("sqlite", fileURI(filepath.Join(dir, FileName), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, updated int
	if err := db.QueryRow("SELECT count(*), count(*) FILTER (WHERE v = id) FROM spill").Scan(&n, &updated); err != nil {
		t.Fatalf("read the recovered copy: %v", err)
	}
	if n != rows || updated != rows {
		t.Fatalf("recovered %d rows, %d updated; want %d of each: a committed transaction was lost", n, updated, rows)
	}
	var integrity string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check: %q %v", integrity, err)
	}
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriterCacheIsSmall: the writer's page cache is 64 pages and spills
// only past 4,096 dirty pages (store.go says why); the common 16 MiB
// setting must not win over it.
func TestWriterCacheIsSmall(t *testing.T) {
	s := openTest(t)
	var size, spill int
	if err := s.w.QueryRow("PRAGMA cache_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRow("PRAGMA cache_spill").Scan(&spill); err != nil {
		t.Fatal(err)
	}
	if size != 64 || spill != 4096 {
		t.Fatalf("writer cache_size %d cache_spill %d, want 64 and 4096", size, spill)
	}
}
