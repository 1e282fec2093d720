-- Knowledge partitions: the registry, the audit trail, and the items of the built-in storage.
CREATE TABLE part_partition (
    name        VARCHAR(100) PRIMARY KEY,
    description TEXT NOT NULL,
    keywords    TEXT NOT NULL,
    patterns    TEXT NOT NULL,
    kinds       TEXT NOT NULL,
    version     INTEGER NOT NULL,
    created_at  VARCHAR(40) NOT NULL,
    updated_at  VARCHAR(40) NOT NULL
);
CREATE TABLE part_audit (
    seq       INTEGER PRIMARY KEY,
    at        VARCHAR(40) NOT NULL,
    action    VARCHAR(32) NOT NULL,
    partition VARCHAR(100) NOT NULL,
    detail    TEXT NOT NULL,
    prev_hash VARCHAR(64) NOT NULL,
    hash      VARCHAR(64) NOT NULL
);
CREATE TABLE part_item (
    item_id   VARCHAR(64) PRIMARY KEY,
    partition VARCHAR(100) NOT NULL,
    text      TEXT NOT NULL,
    meta      TEXT NOT NULL,
    added_at  VARCHAR(40) NOT NULL,
    embedding BLOB
);
CREATE INDEX part_item_partition ON part_item (partition);
