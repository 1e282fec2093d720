-- The REST API's idempotency keys: the answer a write gave, replayed when the same key and body
-- come again. Kept in the store's database so a replay survives a restart and commits with the write.
CREATE TABLE IF NOT EXISTS idempotency_keys (
    tenant TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    users TEXT NOT NULL,
    status INTEGER,
    response TEXT,
    created_at REAL NOT NULL,
    PRIMARY KEY (tenant, idem_key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_age ON idempotency_keys (tenant, created_at);
