-- Remnant schema v3 (PostgreSQL): when a memory happened or was said, apart from when it was
-- learned (created_at, the decay anchor). Temporal recall filters and boosts on it; as_of uses it.
ALTER TABLE memories ADD COLUMN occurred_at double precision;
CREATE INDEX ix_memories_occurred ON memories (tenant, user_id, occurred_at) WHERE occurred_at IS NOT NULL;
