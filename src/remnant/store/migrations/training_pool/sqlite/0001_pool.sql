-- Training data pool: one row per example. Times are fixed-width ISO 8601 UTC text so they sort.
CREATE TABLE pool_example (
    example_id   VARCHAR(64) PRIMARY KEY,
    content_hash VARCHAR(64) NOT NULL,
    body_kind    VARCHAR(16) NOT NULL,
    body         TEXT NOT NULL,
    created_at   VARCHAR(40) NOT NULL,
    added_at     VARCHAR(40) NOT NULL,
    source       VARCHAR(200) NOT NULL,
    authority    REAL NOT NULL,
    importance   REAL NOT NULL,
    tags         TEXT NOT NULL,
    meta         TEXT NOT NULL
);
CREATE INDEX pool_example_created ON pool_example (created_at);
CREATE INDEX pool_example_source ON pool_example (source);
CREATE UNIQUE INDEX pool_example_hash ON pool_example (content_hash);
