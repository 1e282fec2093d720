"""Stores behind one contract: SQLite (embedded default) and PostgreSQL (for scale)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from remnant.core.errors import StoreError
from remnant.core.settings import read
from remnant.store.base import MemoryFilter, Store, UserSummary

__all__ = ["MemoryFilter", "Store", "UserSummary", "check_target", "default_db_path", "open_store"]


def default_db_path() -> Path:
    """``$REMNANT_DB``, else ``$XDG_DATA_HOME/remnant/remnant.db`` (``~/.local/share/remnant/remnant.db``)."""
    env = read("REMNANT_DB") or read("REMNANT_DB_URL")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "remnant" / "remnant.db"


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
_SCHEMES = ("postgresql", "postgres", "sqlite")


def _target(url: str | os.PathLike[str] | None) -> str:
    target = str(url) if url is not None else read("REMNANT_DB_URL") or str(default_db_path())
    m = _SCHEME.match(target)
    if m and m.group(1).lower() not in _SCHEMES:
        raise StoreError(
            f"unsupported database URL scheme {m.group(1)!r}: use a SQLite file path, "
            "sqlite:///path or a postgresql:// URL"
        )
    return target


def check_target(url: str | os.PathLike[str] | None = None, *, create: bool = False) -> None:
    """Refuse, before anything is opened, a database that is not there when only reading
    (``create=False``: a typo must not leave an empty database and a vault key behind), and a
    missing folder even when writing (only the default location's folder is made). PostgreSQL
    URLs are checked when they are opened."""
    target = _target(url)
    if target.lower().startswith(("postgresql://", "postgres://")):
        return
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///") :]
    if target == ":memory:":
        return
    path = Path(target)
    if path.exists():
        return
    if not create:
        raise StoreError(
            f"no database at {path}: nothing to read (check --db / REMNANT_DB; a write such as "
            "`remnant remember` creates one)"
        )
    if not path.parent.is_dir() and path != default_db_path():
        raise StoreError(f"the folder {path.parent} does not exist: create it first, or fix the --db path")


def open_store(url: str | os.PathLike[str] | None = None) -> Store:
    """Open a store by URL or path: ``postgresql://…`` for PostgreSQL, anything else is a SQLite file."""
    target = _target(url)
    if target.startswith(("postgresql://", "postgres://")):
        # without psycopg: MissingExtraError naming the 'pg' extra, before anything is opened
        from remnant.store.postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]

        return PostgresStore(target)  # type: ignore[no-any-return,unused-ignore]
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///") :]
    from remnant.store.sqlite import SQLiteStore

    return SQLiteStore(target)
