-- Checkpoints (one per agent run) and the file snapshots taken before each
-- file's first write in that run (seed 003, "Checkpoint & Snapshot
-- Architecture").

CREATE TABLE checkpoints (
    id              TEXT    PRIMARY KEY,
    session_id      TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn            INTEGER NOT NULL DEFAULT 0,
    status          TEXT    NOT NULL DEFAULT 'pending', -- pending | kept | undone | partial
    total_additions INTEGER NOT NULL DEFAULT 0,
    total_deletions INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL
);

CREATE INDEX checkpoints_by_session ON checkpoints(session_id, created_at);

CREATE TABLE file_snapshots (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    checkpoint_id    TEXT    NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
    file_path        TEXT    NOT NULL, -- workspace-relative, forward slashes
    original_content BLOB,             -- NULL after the file was kept and pruned
    original_mode    INTEGER NOT NULL DEFAULT 0,
    existed          INTEGER NOT NULL, -- 0: olly created the file; 1: it modified it
    created_dirs     TEXT    NOT NULL DEFAULT '[]', -- JSON: directories olly made for a new file
    file_status      TEXT    NOT NULL DEFAULT 'pending', -- pending | kept | undone
    additions        INTEGER,          -- NULL until computed
    deletions        INTEGER,
    created_at       INTEGER NOT NULL,
    UNIQUE (checkpoint_id, file_path)  -- INSERT OR IGNORE keeps the first snapshot
);
