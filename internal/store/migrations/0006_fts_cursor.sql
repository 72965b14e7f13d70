-- Event text is added to the full-text index in batches, behind the append
-- path (see ftsindex.go): one FTS5 statement per appended event wrote a
-- segment per event and cost most of an append. fts_state records the last
-- event id the index covers; search first indexes everything after it.
-- Until this migration every event was indexed as it was appended, so the
-- cursor starts at the newest event.
CREATE TABLE fts_state (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    last_event_id INTEGER NOT NULL
);
INSERT INTO fts_state (id, last_event_id) VALUES (1, (SELECT coalesce(max(id), 0) FROM events));

-- The events_ad trigger unindexes a deleted event's text; it must only
-- run for events the index covers (an FTS5 'delete' of terms never added
-- corrupts it), so DeleteSession indexes everything pending in the same
-- transaction before it deletes.
