-- Remnant schema v5 (SQLite): the keyed digest of a memory's normalised text (an HMAC, never the
-- text), so a repeated turn finds the memory it repeats through an index instead of a scan.
-- Existing rows get none (no backfill: the key-holder's original text is no longer known for
-- redacted rows); they are simply never matched as duplicates.
ALTER TABLE memories ADD COLUMN digest TEXT;
CREATE INDEX ix_memories_digest ON memories (tenant, user_id, digest) WHERE digest IS NOT NULL;
