"""Stores behind one contract: SQLite (embedded default) and PostgreSQL (for scale)."""

from __future__ import annotations

import os
from pathlib import Path

from remnant.core.errors import StoreError
from remnant.store.base import MemoryFilter, Store, UserSummary

__all__ = ["MemoryFilter", "Store", "UserSummary", "default_db_path", "open_store"]


def default_db_path() -> Path:
    """``$REMNANT_DB``, else ``$XDG_DATA_HOME/remnant/remnant.db`` (``~/.local/share/remnant/remnant.db``)."""
    env = os.environ.get("REMNANT_DB") or os.environ.get("REMNANT_DB_URL")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "remnant" / "remnant.db"


def open_store(url: str | os.PathLike[str] | None = None) -> Store:
    """Open a store by URL or path: ``postgresql://…`` for PostgreSQL, anything else is a SQLite file."""
    target = str(url) if url is not None else os.environ.get("REMNANT_DB_URL") or str(default_db_path())
    if target.startswith(("postgresql://", "postgres://")):
        try:
            from remnant.store.postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise StoreError("the PostgreSQL store needs the 'pg' extra: pip install 'remnant[pg]'") from exc
        return PostgresStore(target)  # type: ignore[no-any-return,unused-ignore]
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///") :]
    from remnant.store.sqlite import SQLiteStore

    return SQLiteStore(target)
