-- Full-text search over event text and session titles, and the record of
-- which events have embedding vectors for which model. The vectors' KNN
-- tables (vec0, one per dimension) are created when a model's first vector
-- arrives, since the dimension is only known then.

-- porter: "running" finds "run"; unicode61 with remove_diacritics 2 folds
-- case and accents; punctuation (including "_" and ".") separates tokens, so
-- parse_config is found by "parse" and by "parse config".
CREATE VIRTUAL TABLE events_fts USING fts5(
    text,
    content = 'events',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- New events are indexed by the store with one INSERT … SELECT per
-- transaction, not by an insert trigger: FTS5 flushes its pending terms to
-- a new segment at every statement savepoint, so a trigger would write one
-- segment per event and merge them all again. Events are immutable; they
-- leave only with their session, and this trigger unindexes them.
CREATE TRIGGER events_ad AFTER DELETE ON events WHEN old.text IS NOT NULL BEGIN
    INSERT INTO events_fts(events_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

CREATE VIRTUAL TABLE titles_fts USING fts5(
    title,
    content = 'sessions',
    content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER sessions_ai AFTER INSERT ON sessions BEGIN
    INSERT INTO titles_fts(rowid, title) VALUES (new.rid, new.title);
END;

CREATE TRIGGER sessions_ad AFTER DELETE ON sessions BEGIN
    INSERT INTO titles_fts(titles_fts, rowid, title) VALUES ('delete', old.rid, old.title);
END;

CREATE TRIGGER sessions_au_title AFTER UPDATE OF title ON sessions BEGIN
    INSERT INTO titles_fts(titles_fts, rowid, title) VALUES ('delete', old.rid, old.title);
    INSERT INTO titles_fts(rowid, title) VALUES (new.rid, new.title);
END;

CREATE TABLE embedding_models (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT    NOT NULL UNIQUE,
    dim        INTEGER,                    -- learned from the first vector
    cursor     INTEGER NOT NULL DEFAULT 0, -- the indexer has looked at every event id <= cursor
    created_at INTEGER NOT NULL
);

CREATE TABLE embeddings (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- rowid in the vec0 table
    event_id   INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    model_id   INTEGER NOT NULL REFERENCES embedding_models(id) ON DELETE CASCADE,
    vector     BLOB    NOT NULL, -- float32 little-endian, exactly as the model returned it
    created_at INTEGER NOT NULL,
    UNIQUE (event_id, model_id)
);

CREATE INDEX embeddings_by_model ON embeddings(model_id);
