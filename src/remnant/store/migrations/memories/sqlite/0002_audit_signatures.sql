-- signed audit: each entry's HMAC under the audit key (kept outside the database), and per tenant
-- the newest entry as last signed, so a cut tail or a deleted log no longer verifies
ALTER TABLE audit_log ADD COLUMN mac TEXT;
CREATE TABLE audit_heads (
    tenant      TEXT PRIMARY KEY,
    seq         INTEGER NOT NULL,
    hash        TEXT NOT NULL,
    signed_from INTEGER NOT NULL,
    mac         TEXT NOT NULL
);
