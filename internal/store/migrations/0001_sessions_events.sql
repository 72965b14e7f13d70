-- Sessions and their event log: the single source of truth (DESIGN §3).
-- Times are unix milliseconds. Migrations are additive only: a later file
-- may add tables, columns and indexes, never drop or rewrite them.

PRAGMA application_id = 1869376633; -- "olly"

CREATE TABLE sessions (
    -- rid is a stable integer handle for the title index; VACUUM may
    -- renumber an implicit rowid, never an INTEGER PRIMARY KEY.
    rid                          INTEGER PRIMARY KEY AUTOINCREMENT,
    id                           TEXT    NOT NULL UNIQUE,
    title                        TEXT    NOT NULL DEFAULT '',
    workspace                    TEXT    NOT NULL,
    mode                         TEXT    NOT NULL DEFAULT '',
    model                        TEXT    NOT NULL DEFAULT '',
    explorer_model               TEXT    NOT NULL DEFAULT '',
    status                       TEXT    NOT NULL DEFAULT 'idle',
    -- Who is generating: lets a session left "generating" by a crashed
    -- process read as interrupted while a live one stays generating.
    owner_pid                    INTEGER,
    owner_host                   TEXT,
    owner_start                  INTEGER,
    auto_approve_commands        INTEGER NOT NULL DEFAULT 0,
    auto_approve_sensitive_edits INTEGER NOT NULL DEFAULT 0,
    sensitive_patterns           TEXT,   -- JSON; NULL = use the settings
    session_memory               TEXT,   -- JSON
    parent_session_id            TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    forked_from_seq              INTEGER,
    leaf_seq                     INTEGER NOT NULL DEFAULT 0,
    created_at                   INTEGER NOT NULL,
    updated_at                   INTEGER NOT NULL
);

CREATE INDEX sessions_by_workspace ON sessions(workspace, updated_at);
CREATE INDEX sessions_by_updated ON sessions(updated_at);

CREATE TABLE events (
    -- id is the stable row handle the search indexes point at; AUTOINCREMENT
    -- so ids are never reused after a session is deleted (the embedding
    -- indexer's cursor relies on ids only growing).
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq > 0),
    parent_seq INTEGER NOT NULL CHECK (parent_seq >= 0 AND parent_seq < seq),
    turn       INTEGER NOT NULL DEFAULT 0,
    type       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    text       TEXT,   -- searchable text supplied by the caller; NULL = not indexed
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);

-- The embedding indexer walks events with text in id order.
CREATE INDEX events_with_text ON events(id) WHERE text IS NOT NULL;
