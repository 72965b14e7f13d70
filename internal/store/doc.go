// Package store keeps olly's data in one SQLite database: sessions and their
// event logs (the single source of truth, DESIGN §3), checkpoints and file
// snapshots, the model cache, prompt history, and the search indexes (FTS5
// and sqlite-vec).
//
// The store does not know the Go types of events: the session service hands
// it JSON payloads plus the text to index, and gets the same back. It never
// deletes or recreates anything on its own (seed critical rule #2): a schema
// it does not know or a damaged file is an error naming the file and the
// `olly db` command that repairs it, and the file is left untouched.
//
// docs/storage.md describes the schema, migrations, the session tree,
// search, concurrency and what survives a crash.
package store
