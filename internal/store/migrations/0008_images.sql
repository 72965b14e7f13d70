-- Images attached to prompts (@image.png, RPC image content), stored once
-- by content hash. Events refer to them by sha256 (event.ImageRef) instead
-- of carrying the bytes, so the log, live frames and exports stay small;
-- the conversation loads the bytes when it sends the message to a model.
CREATE TABLE images (
    sha256     TEXT    PRIMARY KEY, -- hex of the bytes' SHA-256
    mime_type  TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);
