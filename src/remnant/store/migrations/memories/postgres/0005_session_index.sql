-- Remnant schema v5 (PostgreSQL): a conversation turn's context (the session's newest turns before
-- a batch, the turn before each new one for its paired vector) is read on every write; this index
-- keeps that read on the session's rows instead of the user's whole scope.
CREATE INDEX ix_memories_session ON memories (tenant, user_id, session_id, created_at) WHERE session_id IS NOT NULL;
