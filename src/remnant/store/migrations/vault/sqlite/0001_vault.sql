-- The privacy vault: ciphertext, a keyed HMAC and metadata only, never plaintext. IF NOT EXISTS
-- adopts the tables that Remnant versions before this migration created without a version row.
CREATE TABLE IF NOT EXISTS vault_entries (
    tenant TEXT NOT NULL,
    user_id TEXT NOT NULL,
    placeholder TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    value_hmac TEXT NOT NULL,
    key_id TEXT NOT NULL,
    nonce BLOB NOT NULL,
    ciphertext BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, user_id, placeholder),
    UNIQUE (tenant, user_id, value_hmac)
);
CREATE INDEX IF NOT EXISTS vault_entries_type ON vault_entries (tenant, user_id, entity_type);
CREATE TABLE IF NOT EXISTS vault_counters (
    tenant TEXT NOT NULL,
    user_id TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    last_index INTEGER NOT NULL,
    PRIMARY KEY (tenant, user_id, entity_type)
);
