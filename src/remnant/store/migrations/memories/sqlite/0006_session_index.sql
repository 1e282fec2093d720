-- Remnant schema v6 (SQLite): a conversation turn's context (the session's newest turns before a
-- batch, the turn before each new one for its paired vector) is read on every write; without this
-- index the read walked the user's whole scope on ix_memories_created looking for the session.
CREATE INDEX ix_memories_session ON memories (tenant, user_id, session_id, created_at) WHERE session_id IS NOT NULL;
