-- signed audit: each entry's HMAC under the audit key (kept outside the database), and per tenant
-- the newest entry as last signed, so a cut tail or a deleted log no longer verifies
ALTER TABLE audit_log ADD COLUMN mac text;
CREATE TABLE audit_heads (
    tenant      text PRIMARY KEY,
    seq         bigint NOT NULL,
    hash        text NOT NULL,
    signed_from bigint NOT NULL,
    mac         text NOT NULL
);
