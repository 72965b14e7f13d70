package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// applicationID marks a file as olly's ("olly" in ASCII), so that a
// database another program made is never migrated by mistake.
const applicationID = 0x6F6C6C79

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Their numbers must
// run 1, 2, 3… without gaps: user_version counts how many were applied.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("embedded migration %q: name must be NNNN_name.sql", e.Name())
		}
		body, err := fs.ReadFile(migrationFS, "migrations/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("read embedded migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("embedded migrations: expected version %d, found %s", i+1, m.name)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this olly writes: the number of its
// migrations.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// header is what prepare reads before deciding whether it may write.
type header struct {
	version int
	appID   int
	objects int // schema objects, excluding SQLite's own
}

func readHeader(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (header, error) {
	// One statement, so one snapshot: another process migrating the file
	// at this moment is seen either wholly before or wholly after.
	// Reading the schema parses every CREATE statement: a damaged schema
	// page fails here, before anything is written.
	var h header
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT user_version FROM pragma_user_version),
		(SELECT application_id FROM pragma_application_id),
		(SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%')`).
		Scan(&h.version, &h.appID, &h.objects)
	return h, err
}

// prepare checks the file and migrates it. Nothing is written until the
// checks pass.
func (s *Store) prepare(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	h, err := readHeader(ctx, s.w)
	if err != nil {
		return s.openErr(err)
	}
	if h.appID != applicationID && (h.appID != 0 || h.objects > 0 || h.version != 0) {
		return &ForeignError{Path: s.file}
	}
	if h.version > len(ms) {
		return &VersionError{Path: s.file, Have: h.version, Known: len(ms)}
	}
	if err := s.enableWAL(ctx); err != nil {
		return err
	}
	for _, m := range ms[h.version:] {
		if err := s.migrate(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) openErr(err error) error {
	if isDamage(err) {
		return &DamagedError{Path: s.file, Err: err}
	}
	return fmt.Errorf("open database %s: %w", s.file, err)
}

// enableWAL switches the file to write-ahead logging (persistent), so
// readers never block the writer and a commit is one append to the log.
func (s *Store) enableWAL(ctx context.Context) error {
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return s.openErr(err)
	}
	if strings.EqualFold(mode, "wal") {
		return nil
	}
	// Switching needs the file to itself. SQLite answers BUSY at once,
	// without waiting on the busy timeout, when another connection that is
	// switching too holds a shared lock (waiting would deadlock); so the
	// switch is retried here, for as long as the busy timeout allows.
	deadline := time.Now().Add(s.opts.BusyTimeout)
	for {
		err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil {
			break
		}
		if sqliteCode(err) != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return s.openErr(fmt.Errorf("enable WAL: %w", err))
		}
		select {
		case <-ctx.Done():
			return s.openErr(fmt.Errorf("enable WAL: %w", ctx.Err()))
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open database %s: cannot enable WAL (journal mode stays %q); "+
			"is it on a network file system? Put it on a local disk", s.file, mode)
	}
	return nil
}

// migrate applies m in one transaction. Another process may be migrating
// the same file at the same moment, so the version is re-read under the
// write lock and a step someone else applied is skipped.
func (s *Store) migrate(ctx context.Context, m migration) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.openErr(fmt.Errorf("migrate to version %d: %w", m.version, err))
	}
	defer rollback(tx)
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return s.openErr(fmt.Errorf("migrate to version %d: %w", m.version, err))
	}
	if v >= m.version {
		return nil
	}
	if v != m.version-1 {
		return fmt.Errorf("migrate database %s: at version %d, cannot apply %s", s.file, v, m.name)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return s.openErr(fmt.Errorf("migrate database %s with %s: %w", s.file, m.name, err))
	}
	// PRAGMA takes no bound parameters; the version is our own integer.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return s.openErr(fmt.Errorf("migrate database %s: set version %d: %w", s.file, m.version, err))
	}
	if err := tx.Commit(); err != nil {
		return s.openErr(fmt.Errorf("migrate database %s: commit %s: %w", s.file, m.name, err))
	}
	return nil
}

// rollback ends tx if it is still open; after Commit it is a no-op, and
// its error is meaningless there.
func rollback(tx *sql.Tx) { _ = tx.Rollback() }
