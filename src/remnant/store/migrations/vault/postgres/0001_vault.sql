-- The privacy vault: ciphertext, a keyed HMAC and metadata only, never plaintext. IF NOT EXISTS
-- adopts the tables that Remnant versions before this migration created without a version row.
CREATE TABLE IF NOT EXISTS vault_entries (
    tenant text NOT NULL,
    user_id text NOT NULL,
    placeholder text NOT NULL,
    entity_type text NOT NULL,
    value_hmac text NOT NULL,
    key_id text NOT NULL,
    nonce bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at text NOT NULL,
    PRIMARY KEY (tenant, user_id, placeholder),
    UNIQUE (tenant, user_id, value_hmac)
);
CREATE INDEX IF NOT EXISTS vault_entries_type ON vault_entries (tenant, user_id, entity_type);
CREATE TABLE IF NOT EXISTS vault_counters (
    tenant text NOT NULL,
    user_id text NOT NULL,
    entity_type text NOT NULL,
    last_index bigint NOT NULL,
    PRIMARY KEY (tenant, user_id, entity_type)
);
