package store

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors, for errors.Is.
var (
	// ErrNotFound: no session, event, checkpoint or snapshot with that key.
	ErrNotFound = errors.New("not found")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("store is closed")
	// ErrSessionBusy: another live process is generating in the session.
	ErrSessionBusy = errors.New("session is generating in another olly process")
	// ErrConflict: an event queued with AppendAsync lost its place in the
	// session's log to another process appending to the same session.
	ErrConflict = errors.New("another process appended to the session at the same time")
	// ErrInUse: the database is open in another process (olly db reset).
	ErrInUse = errors.New("database is in use by another process")
)

// VersionError reports a database written by a newer olly: its schema
// version is beyond the migrations this binary carries. Nothing was changed.
type VersionError struct {
	Path  string
	Have  int // the file's PRAGMA user_version
	Known int // the newest version this olly knows
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("database %s has schema version %d, but this olly knows versions up to %d: "+
		"it was written by a newer olly. Upgrade olly, or point it at another database "+
		"(--db FILE or OLLY_DB). The file was not changed.", e.Path, e.Have, e.Known)
}

// DamagedError reports a file that is not a readable SQLite database, or
// one SQLite found malformed. Nothing was changed.
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("database %s is damaged (%v). Nothing was changed. "+
		"Run `olly db check` for details; `olly db backup FILE` may still copy what is readable; "+
		"`olly db reset` moves the file aside (nothing is deleted) so olly starts with a new database.",
		e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// ForeignError reports a database that holds tables but was not created by
// olly: migrating it would mix olly's tables into someone else's data.
type ForeignError struct {
	Path string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("database %s was not created by olly (it holds other tables): "+
		"point olly at another file with --db FILE or OLLY_DB. The file was not changed.", e.Path)
}

// sqliteCode returns the primary SQLite result code in err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isDamage reports whether err is SQLite saying the file is not a database
// or is malformed.
func isDamage(err error) bool {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// classify turns a damage error from any query into a *DamagedError naming
// the file and the repair commands; other errors pass through.
func classify(path string, err error) error {
	if err == nil {
		return nil
	}
	var de *DamagedError
	if errors.As(err, &de) || !isDamage(err) {
		return err
	}
	return &DamagedError{Path: path, Err: err}
}
