-- Prompt recall (seed 002, "Prompt history is separate"): what the person
-- typed, for up-arrow and search. Not conversation state.

CREATE TABLE prompt_history (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    text       TEXT    NOT NULL,
    workspace  TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);

CREATE INDEX prompt_history_by_workspace ON prompt_history(workspace, id);

CREATE VIRTUAL TABLE prompt_history_fts USING fts5(
    text,
    content = 'prompt_history',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER prompt_history_ai AFTER INSERT ON prompt_history BEGIN
    INSERT INTO prompt_history_fts(rowid, text) VALUES (new.id, new.text);
END;

CREATE TRIGGER prompt_history_ad AFTER DELETE ON prompt_history BEGIN
    INSERT INTO prompt_history_fts(prompt_history_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
