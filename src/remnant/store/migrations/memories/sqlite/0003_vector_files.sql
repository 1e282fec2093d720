-- The persistent vector index beside the database (remnant.store.vector_file): each embedding
-- has a slot, its row in the (tenant, model) vector file; the file's committed length lives here,
-- so every process reads the same index and a crashed writer's unfinished rows are ignored.
ALTER TABLE embeddings ADD COLUMN slot INTEGER;
CREATE UNIQUE INDEX ix_embeddings_slot ON embeddings (tenant, model, slot);
-- rows not yet in a file (written before this migration, or after a repair): found in constant time
CREATE INDEX ix_embeddings_unslotted ON embeddings (tenant, model) WHERE slot IS NULL;

CREATE TABLE vector_files (
    tenant TEXT NOT NULL,
    model  TEXT NOT NULL,
    dim    INTEGER NOT NULL,
    rows   INTEGER NOT NULL,       -- committed slots; bytes past them are a crashed writer's and ignored
    name   TEXT NOT NULL,          -- the file's name beside the database
    PRIMARY KEY (tenant, model)
);

-- slots whose vector must be overwritten with zeros (purged or replaced): committed with the delete,
-- zeroed right after the commit, and again on open if a process died in between
CREATE TABLE vector_tombstones (
    tenant TEXT NOT NULL,
    model  TEXT NOT NULL,
    slot   INTEGER NOT NULL,
    PRIMARY KEY (tenant, model, slot)
);
