-- Examples whose statement was superseded by a conflict resolution keep their row but are
-- weighted by the policy's superseded_factor (0 by default: never drawn).
ALTER TABLE pool_example ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
