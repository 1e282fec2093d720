-- Remnant schema v4 (PostgreSQL): the keyed digest of a memory's normalised text (an HMAC, never
-- the text), so a repeated turn finds the memory it repeats through an index instead of a scan.
-- Existing rows get none (no backfill); they are simply never matched as duplicates.
ALTER TABLE memories ADD COLUMN digest text;
CREATE INDEX ix_memories_digest ON memories (tenant, user_id, digest) WHERE digest IS NOT NULL;
