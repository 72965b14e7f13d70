-- The model list cache: what the server last reported, plus the person's own
-- choices (enabled, context cap), which a refresh must never overwrite.

CREATE TABLE models (
    name           TEXT    PRIMARY KEY,
    size           INTEGER NOT NULL DEFAULT 0,
    family         TEXT    NOT NULL DEFAULT '',
    quantization   TEXT    NOT NULL DEFAULT '',
    capabilities   TEXT    NOT NULL DEFAULT '{}', -- JSON, as the model client wrote it
    context_length INTEGER,                       -- NULL = unknown
    enabled        INTEGER NOT NULL DEFAULT 1,
    num_ctx_cap    INTEGER,                       -- NULL = no per-model cap
    installed      INTEGER NOT NULL DEFAULT 1,
    updated_at     INTEGER NOT NULL
);
