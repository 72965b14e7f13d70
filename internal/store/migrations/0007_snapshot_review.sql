-- What keep and undo of single hunks need (internal/checkpoint): the
-- content olly last wrote in the checkpoint, so the agent's hunks
-- (original → written) can be told from the person's own later edits
-- (written → on disk), which undo must never overwrite; and how many
-- hunks were kept and undone, so a file resolved with both is "partial".
ALTER TABLE file_snapshots ADD COLUMN written_content BLOB; -- NULL: not recorded (use the file on disk)
ALTER TABLE file_snapshots ADD COLUMN hunks_kept INTEGER NOT NULL DEFAULT 0;
ALTER TABLE file_snapshots ADD COLUMN hunks_undone INTEGER NOT NULL DEFAULT 0;
