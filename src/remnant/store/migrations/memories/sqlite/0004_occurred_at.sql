-- Remnant schema v4 (SQLite): when a memory happened or was said, apart from when it was learned
-- (created_at, the decay anchor). Temporal recall filters and boosts on it; as_of uses it.
ALTER TABLE memories ADD COLUMN occurred_at REAL;
CREATE INDEX ix_memories_occurred ON memories (tenant, user_id, occurred_at) WHERE occurred_at IS NOT NULL;
-- the recall filter's validity test reads occurred_at: keep it inside the covering index
DROP INDEX ix_memories_recall;
CREATE INDEX ix_memories_recall ON memories (tenant, user_id, status, fade_at, expires_at, valid_from, valid_to,
                                             created_at, occurred_at);
