-- leaf_at_end = 1: the session's leaf is its last event (max(seq), 0 with
-- none), whatever leaf_seq holds. Every append leaves the leaf there, so
-- the append path no longer rewrites the session row at each commit to
-- move leaf_seq (an UPDATE and one WAL frame of an agent step's ~6.6): it
-- sets the flag once, and again after SetLeaf, which stores leaf_seq and
-- clears it. Readers of the leaf use leafExpr (store/sessions.go).
-- Existing sessions keep 0: their leaf_seq holds.
ALTER TABLE sessions ADD COLUMN leaf_at_end INTEGER NOT NULL DEFAULT 0;

-- An olly from before this migration that was already running when the
-- file was upgraded still reads leaf_seq as the leaf, and writes it at
-- each of its commits. Where the flag is set, such a write (the only
-- kind that changes leaf_seq and leaves the flag set: this olly never
-- does) fails with a message, so the old process's append is not stored
-- under a stale parent.
CREATE TRIGGER sessions_leaf_guard BEFORE UPDATE OF leaf_seq ON sessions
WHEN old.leaf_at_end AND new.leaf_at_end BEGIN
    SELECT RAISE(ABORT, 'this session''s leaf is kept by a newer olly (schema 10) that upgraded the database: restart olly');
END;
