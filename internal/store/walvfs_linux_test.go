package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// The olly-wal VFS writes each WAL frame with one write instead of two
// (header, then page), and what it writes is what SQLite meant: another
// connection on the default VFS reads every row, and the file passes
// integrity_check.
func TestWalVFSOneWritePerFrame(t *testing.T) {
	name := walVFSNameOrDefault()
	if name == "" {
		t.Fatal("the olly-wal VFS could not be registered")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "wal_autocheckpoint(0)") // every frame stays in the WAL: counted below
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("vfs", name)
	w, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	writes0 := walVFS.writes.Load()
	if _, err := w.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const txs = 40
	for i := range txs {
		// Rows of 1 to 6 KiB: some transactions touch several pages and
		// overflow pages.
		v := strings.Repeat(fmt.Sprint(i%10), 1024*(1+i%6))
		if _, err := w.ExecContext(ctx, `INSERT INTO t (v) VALUES (?)`, v); err != nil {
			t.Fatal(err)
		}
	}
	writes := walVFS.writes.Load() - writes0
	frames := walFrames(t, w)
	if frames < txs {
		t.Fatalf("%d frames for %d transactions", frames, txs)
	}
	// The WAL's own header, then one write per frame (two before).
	if writes != frames+1 {
		t.Errorf("%d writes for %d WAL frames, want %d: the header and one per frame", writes, frames, frames+1)
	}

	// Another connection, on the default VFS, sees every row as written.
	r, err := sql.Open("sqlite", fileURI(path, url.Values{"_pragma": {"query_only(1)"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n, bad int
	if err := r.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE length(v) != 1024 * (1 + (id - 1) % 6)
		OR substr(v, 1, 1) != CAST((id - 1) % 10 AS TEXT)) FROM t`).Scan(&n, &bad); err != nil {
		t.Fatal(err)
	}
	if n != txs || bad != 0 {
		t.Errorf("the reader sees %d rows, %d of them wrong; want %d, 0", n, bad, txs)
	}
	var check string
	if err := r.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
}

// walFrames is the number of frames in the WAL (a checkpoint's "log"
// figure).
func walFrames(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var busy, log, done int64
	if err := db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
		t.Fatal(err)
	}
	return log
}
