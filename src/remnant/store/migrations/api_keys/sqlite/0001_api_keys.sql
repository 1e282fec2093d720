-- API keys: only each key's SHA-256 is stored. IF NOT EXISTS adopts key files made before this
-- migration existed.
CREATE TABLE IF NOT EXISTS api_keys (
    key_id       TEXT PRIMARY KEY,
    key_hash     TEXT NOT NULL UNIQUE,
    tenant       TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    name         TEXT NOT NULL,
    created_at   REAL NOT NULL,
    revoked_at   REAL,
    last_used_at REAL
);
