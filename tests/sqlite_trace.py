"""Which traced SQLite statements are the engine's own, for the tests that count them."""

from __future__ import annotations

#: what SQLite's FTS5 issues itself: its shadow-table statements (``--`` comments), and the re-read
#: of its configuration when a pooled connection finds the file changed by another connection
#: (which pooled connection serves a read varies from run to run)
_FTS5_OWN = ("--", "PRAGMA 'main'.data_version", "SELECT k, v FROM 'main'.'memory_fts_config'")


def ours(statement: str) -> bool:
    """Whether a traced statement is one the engine ran (not FTS5's own bookkeeping)."""
    return not statement.startswith(_FTS5_OWN)
