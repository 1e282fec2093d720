"""Backend errors come out of every store as Remnant's errors (never a bare sqlite3/psycopg one)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from remnant.core.errors import RemnantError, StoreError, TransientConflict, ValidationError
from remnant.core.model import MemoryRecord, new_id
from remnant.store import open_store
from remnant.store.base import MemoryFilter
from remnant.store.sql import SQLStore
from remnant.store.sqlite import SQLiteStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLStore]:
    url = str(tmp_path / "r.db") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    s = open_store(url)
    assert isinstance(s, SQLStore)
    yield s
    s.close()


def _rec() -> MemoryRecord:
    return MemoryRecord(
        id=new_id(),
        user_id="ana",
        content="x",
        created_at=T0,
        strength0=1.0,
        stability=1.0,
        anchor=0.0,
        fade_at=1.0,
    )


def test_bad_sql_through_the_seam_is_a_store_error(store: SQLStore) -> None:
    with pytest.raises(StoreError) as info:
        store.fetch("SELECT no_such_column FROM memories")
    assert not isinstance(info.value.__cause__, RemnantError)  # mapped from the driver's error
    with pytest.raises(StoreError):
        store.execute("UPDATE no_such_table SET x = 1")


def test_constraint_violation_is_a_validation_error(store: SQLStore) -> None:
    r = _rec()
    store.insert(r)
    with pytest.raises(ValidationError):
        store.insert(r)
    with pytest.raises(ValidationError):
        store.execute("INSERT INTO memories (id) VALUES ('only-an-id')")  # NOT NULL columns


def test_an_error_inside_a_transaction_is_mapped_and_rolls_back(store: SQLStore) -> None:
    with pytest.raises(StoreError), store.transaction():
        store.insert(_rec())
        store.fetch("SELECT * FROM no_such_table")
    assert store.count(MemoryFilter()) == 0


def test_a_closed_store_raises_a_store_error(store: SQLStore) -> None:
    store.close()
    with pytest.raises(StoreError):
        store.count(MemoryFilter())
    with pytest.raises(StoreError):
        store.set_meta("k", "v")


def test_serialization_failure_and_deadlock_are_transient_conflicts(pg_url: str) -> None:
    # the server itself raises the SQLSTATEs a concurrent transaction would cause
    with open_store(pg_url) as store:
        assert isinstance(store, SQLStore)
        for state in ("40001", "40P01"):
            with pytest.raises(TransientConflict, match="rolled back"):
                store.execute(f"DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '{state}'; END $$")
            with pytest.raises(TransientConflict), store.transaction():
                store.execute(f"DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '{state}'; END $$")


def test_corrupt_sqlite_file_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    path.write_bytes(b"this is not a database, just some text" * 200)
    with pytest.raises(StoreError, match="corrupt"):
        open_store(str(path))


def test_sqlite_file_corrupted_while_open_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with SQLiteStore(path) as s:
        for _ in range(50):
            s.insert(_rec())
        s.compact()  # everything in the main file, nothing left in the WAL
    with path.open("r+b") as fh:  # wreck every page after the header
        fh.seek(4096)
        fh.write(b"\xff" * 40960)
    with pytest.raises(StoreError), SQLiteStore(path) as s:
        s.query(MemoryFilter(statuses=None))


def test_locked_sqlite_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    SQLiteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked"):
            store = SQLiteStore(path, timeout=0.2)
            try:
                store.set_meta("k", "v")
            finally:
                store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
