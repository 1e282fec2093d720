"""Schema migration files (data, not code)."""
