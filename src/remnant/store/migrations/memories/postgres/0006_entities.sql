-- Remnant schema v6 (PostgreSQL): the entity index. The people, places, organisations, products,
-- dates and quantities a memory names (read from its stored, already redacted text by the
-- retriever's entity reader: a vaulted value is a placeholder here as in the content), one row per
-- (memory, key). Looked up by (tenant, key, user) for a recall's second round; the rows go with
-- their memory (ON DELETE CASCADE: purge, erasure). Memories written before this version have none.
CREATE TABLE memory_entities (
    memory_id text NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tenant    text NOT NULL,
    user_id   text NOT NULL,
    kind      text NOT NULL,
    key       text NOT NULL,
    PRIMARY KEY (memory_id, key)
);
CREATE INDEX ix_memory_entities_key ON memory_entities (tenant, key, user_id);
