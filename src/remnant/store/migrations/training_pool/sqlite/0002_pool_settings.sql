-- Pool-level settings (half-life and exponents) so every command on one pool file agrees.
CREATE TABLE pool_setting (
    name  VARCHAR(64) PRIMARY KEY,
    value TEXT NOT NULL
);
