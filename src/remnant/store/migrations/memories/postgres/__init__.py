"""PostgreSQL migrations, numbered like SQLite's: one ``NNNN_name.sql`` file per schema version."""
