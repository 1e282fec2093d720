-- Remnant schema v7 (SQLite): the entity index. The people, places, organisations, products, dates
-- and quantities a memory names (read from its stored, already redacted text by the retriever's
-- entity reader: a vaulted value is a placeholder here as in the content), one row per (memory,
-- key). Looked up by (tenant, key, user) for a recall's second round; the rows go with their memory
-- (ON DELETE CASCADE: purge, erasure). Memories written before this version have none.
CREATE TABLE memory_entities (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tenant    TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    key       TEXT NOT NULL,
    PRIMARY KEY (memory_id, key)
) WITHOUT ROWID;
CREATE INDEX ix_memory_entities_key ON memory_entities (tenant, key, user_id);
