-- Remnant schema v1 (SQLite). Times are epoch seconds (REAL, UTC); fade_at is on the decay axis (days).
CREATE TABLE memories (
    rid               INTEGER PRIMARY KEY,          -- stable rowid: FTS and embeddings point at it
    id                TEXT NOT NULL UNIQUE,
    tenant            TEXT NOT NULL,
    user_id           TEXT NOT NULL,
    agent_id          TEXT,
    session_id        TEXT,
    kind              TEXT NOT NULL,
    key               TEXT,
    content           TEXT NOT NULL,
    source            TEXT,
    confidence        REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    importance        REAL NOT NULL CHECK (importance BETWEEN 0 AND 1),
    pinned            INTEGER NOT NULL DEFAULT 0,
    created_at        REAL NOT NULL,
    last_accessed_at  REAL,
    access_count      INTEGER NOT NULL DEFAULT 0,
    review_count      INTEGER NOT NULL DEFAULT 0,
    expires_at        REAL,
    valid_from        REAL,
    valid_to          REAL,
    status            TEXT NOT NULL DEFAULT 'active',
    status_reason     TEXT,
    status_changed_at REAL,
    superseded_by     TEXT,
    strength0         REAL NOT NULL,
    stability         REAL NOT NULL,
    anchor            REAL NOT NULL,
    fade_at           REAL NOT NULL,
    metadata          TEXT NOT NULL DEFAULT '{}'
);
-- "still remembered" for one user is a range scan on this index
-- (covering the expiry and validity columns, so counting what is remembered never touches the rows)
CREATE INDEX ix_memories_recall ON memories (tenant, user_id, status, fade_at, expires_at, valid_from, valid_to,
                                             created_at);
CREATE INDEX ix_memories_key ON memories (tenant, user_id, key, status) WHERE key IS NOT NULL;
CREATE INDEX ix_memories_created ON memories (tenant, user_id, created_at);
-- set-based sweeps across all users
CREATE INDEX ix_memories_sweep_fade ON memories (status, fade_at);
CREATE INDEX ix_memories_sweep_expiry ON memories (status, expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX ix_memories_sweep_access ON memories (status, last_accessed_at);

-- scope holds a tenant token and a tenant+user token, so a search is one FTS query bounded to one user
CREATE VIRTUAL TABLE memory_fts USING fts5 (scope, text, tokenize = 'porter unicode61 remove_diacritics 2');

CREATE TABLE embeddings (
    rid     INTEGER PRIMARY KEY REFERENCES memories (rid) ON DELETE CASCADE,
    tenant  TEXT NOT NULL,
    model   TEXT NOT NULL,
    dim     INTEGER NOT NULL,
    vector  BLOB NOT NULL
);
CREATE INDEX ix_embeddings_model ON embeddings (tenant, model);

CREATE TABLE audit_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant     TEXT NOT NULL,
    at         REAL NOT NULL,
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL,
    reason     TEXT NOT NULL,
    user_id    TEXT,
    policy     TEXT,
    batch_id   TEXT,
    memory_ids TEXT NOT NULL,
    summary    TEXT NOT NULL,
    details    TEXT NOT NULL,
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL
);
CREATE INDEX ix_audit_tenant ON audit_log (tenant, seq);
CREATE INDEX ix_audit_user ON audit_log (tenant, user_id, seq);
-- append-only: the hash chain detects tampering, these triggers stop casual edits
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TABLE activity (
    tenant  TEXT NOT NULL,
    user_id TEXT NOT NULL,
    day     TEXT NOT NULL,
    PRIMARY KEY (tenant, user_id, day)
) WITHOUT ROWID;

CREATE TABLE remnant_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
