package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The maintenance functions work on a database file without opening it as
// a Store: they never migrate, and they work on files Open refuses (a
// newer schema, damage). They back the `olly db` commands.

// CheckReport is the outcome of Check.
type CheckReport struct {
	Path string `json:"path"`
	// Version is the file's schema version; Known the newest this olly
	// knows. Version < Known is fine (Open upgrades it).
	Version int `json:"version"`
	Known   int `json:"known"`
	// Integrity lists what PRAGMA integrity_check found (empty: ok), or
	// why the file could not be read as a database.
	Integrity []string `json:"integrity,omitempty"`
	// ForeignKeys lists rows pointing at missing parents.
	ForeignKeys []string `json:"foreignKeys,omitempty"`
	// Foreign is true when the file was not made by olly.
	Foreign bool `json:"foreign,omitempty"`
}

// OK reports whether the database is sound and usable by this olly.
func (r *CheckReport) OK() bool {
	return len(r.Integrity) == 0 && len(r.ForeignKeys) == 0 && r.Version <= r.Known && !r.Foreign
}

// openReadOnly opens path without creating or changing it.
func openReadOnly(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Check runs SQLite's integrity and foreign-key checks on the database at
// path and reads its schema version. It reads only. Problems are in the
// report; the error is for not being able to check at all (no such file).
func Check(ctx context.Context, path string) (*CheckReport, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	db, err := openReadOnly(abs)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	r := &CheckReport{Path: abs, Known: SchemaVersion()}
	h, err := readHeader(ctx, db)
	if isDamage(err) {
		r.Integrity = []string{err.Error()}
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check database %s: %w", abs, err)
	}
	r.Version = h.version
	r.Foreign = h.appID != applicationID && (h.appID != 0 || h.objects > 0 || h.version != 0)
	if r.Integrity, err = column(ctx, db, "PRAGMA integrity_check"); err != nil {
		r.Integrity = []string{err.Error()}
		return r, nil
	}
	if len(r.Integrity) == 1 && r.Integrity[0] == "ok" {
		r.Integrity = nil
	}
	r.ForeignKeys, err = foreignKeyProblems(ctx, db)
	if err != nil {
		r.ForeignKeys = []string{err.Error()}
	}
	return r, nil
}

func column(ctx context.Context, db *sql.DB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func foreignKeyProblems(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
	}
	return out, rows.Err()
}

// Backup writes a consistent copy of the database at path to dest with
// VACUUM INTO, while other processes may be using it. dest must not exist.
func Backup(ctx context.Context, path, dest string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("backup to %s: the file exists; choose another name", dest)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	db, err := openReadOnly(abs)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		if isDamage(err) {
			return &DamagedError{Path: abs, Err: fmt.Errorf("backup to %s: %w", dest, err)}
		}
		return fmt.Errorf("backup %s to %s: %w", abs, dest, err)
	}
	return nil
}

// BackupName is the default backup file for the database at path:
// olly.db → olly.backup-20060102-150405.db, beside it.
func BackupName(path string, now time.Time) string {
	return asideName(path, "backup", now)
}

func asideName(path, what string, now time.Time) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + what + "-" + now.Format("20060102-150405") + ext
}

// MoveAside renames the database at path, with its -wal and -shm files, to
// a timestamped name beside it (olly.db → olly.reset-20060102-150405.db),
// so that the next Open starts a new database. Nothing is deleted, and the
// moved files still open together. It refuses, with ErrInUse, while
// another process has the database open. It returns the new paths.
func MoveAside(path string, now time.Time) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(abs); err != nil {
		return nil, fmt.Errorf("move database aside: %w", err)
	}
	busy, err := inUse(abs)
	if err != nil {
		return nil, fmt.Errorf("move database %s aside: %w", abs, err)
	}
	if busy {
		return nil, fmt.Errorf("move database %s aside: %w; quit the other olly first", abs, ErrInUse)
	}
	target := asideName(abs, "reset", now)
	for i := 2; exists(target) || exists(target+"-wal"); i++ {
		target = asideName(abs, "reset", now)
		target = strings.TrimSuffix(target, filepath.Ext(target)) + "-" + strconv.Itoa(i) + filepath.Ext(abs)
	}
	var moved []string
	for _, suffix := range []string{"", "-wal", "-shm"} {
		from := abs + suffix
		if !exists(from) {
			continue
		}
		if err := os.Rename(from, target+suffix); err != nil {
			return moved, fmt.Errorf("move %s to %s: %w", from, target+suffix, err)
		}
		moved = append(moved, target+suffix)
	}
	return moved, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
