"""Time of learning vs time of event: ``occurred_at`` is stored apart from ``created_at`` on both
backends, decay runs from when a memory is learned, and ``as_of`` looks at when it happened."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.engine import Memory
from remnant.store.migrations import MEMORIES
from remnant.store.postgres import PostgresStore
from remnant.store.sqlite import SQLiteStore

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
EVENT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _check(mem: Memory, clock: ManualClock) -> None:
    rec = mem.remember("I moved to Berlin", user_id="ana", kind="episode", occurred_at=EVENT)
    assert rec.occurred_at == EVENT and rec.created_at == NOW
    got = mem.get(rec.id)
    assert got.occurred_at == EVENT and got.created_at == NOW
    # learned today: as strong as any new memory, though the event is three years old
    fresh = mem.remember("I like tea", user_id="ana", kind="episode")
    assert fresh.occurred_at is None
    assert mem.strength(rec.id) == pytest.approx(mem.strength(fresh.id))
    assert [h.memory.id for h in mem.recall("Berlin", user_id="ana", touch=False).hits] == [rec.id]
    # as_of uses the event time: in 2024 the move had happened (though it was learned in 2026)
    past = mem.recall("Berlin", user_id="ana", as_of=datetime(2024, 1, 1, tzinfo=UTC), touch=False)
    assert [h.memory.id for h in past.hits] == [rec.id]
    before = mem.recall("Berlin", user_id="ana", as_of=datetime(2023, 1, 1, tzinfo=UTC), touch=False)
    assert before.hits == []
    # a memory about a planned event is known from when it was learned, not hidden until then
    plan = mem.remember("trip to Lisbon", user_id="ana", occurred_at=NOW + timedelta(days=30))
    assert [h.memory.id for h in mem.recall("Lisbon", user_id="ana", touch=False).hits] == [plan.id]
    added = mem.add([{"role": "user", "content": "we got a dog"}], user_id="ana", occurred_at=EVENT)
    assert added.episodes[0].occurred_at == EVENT
    with pytest.raises(ValidationError):
        mem.remember("naive", user_id="ana", occurred_at=datetime(2023, 1, 1))


def test_occurred_at_sqlite(tmp_path: Path) -> None:
    clock = ManualClock(NOW)
    with Memory(tmp_path / "m.db", clock=clock) as mem:
        _check(mem, clock)


def test_occurred_at_postgres(pg_url: str) -> None:
    clock = ManualClock(NOW)
    with Memory(store=PostgresStore(pg_url), clock=clock) as mem:
        _check(mem, clock)


def test_v1_database_gains_the_column(tmp_path: Path) -> None:
    """A database made before occurred_at opens, keeps its rows, and takes the new field."""
    # the number of the migration that adds occurred_at (later ones, if any, are rolled back too)
    ours = next(m.number for m in MEMORIES.migrations("sqlite") if m.name.endswith("_occurred_at.sql"))
    path = tmp_path / "old.db"
    clock = ManualClock(NOW)
    with Memory(path, clock=clock) as mem:
        old = mem.remember("kept from before", user_id="u")
    conn = sqlite3.connect(path)  # roll the file back to the schema before occurred_at
    conn.executescript(
        # the later migrations' schema too (0005: the duplicate digest, 0006: the session index,
        # 0007: the entity index, 0008: the full-text change log)
        "DROP TABLE lexical_log;"
        "DROP TABLE memory_entities;"
        "DROP INDEX ix_memories_session;"
        "DROP INDEX ix_memories_digest; ALTER TABLE memories DROP COLUMN digest;"
        "DROP INDEX ix_memories_occurred; DROP INDEX ix_memories_recall;"
        "ALTER TABLE memories DROP COLUMN occurred_at;"
        "CREATE INDEX ix_memories_recall ON memories (tenant, user_id, status, fade_at, expires_at,"
        " valid_from, valid_to, created_at);"
        f"DELETE FROM schema_migrations WHERE version >= {ours};"
    )
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        assert store.schema_version() == len(MEMORIES.migrations("sqlite"))
    with Memory(path, clock=clock) as mem:
        assert mem.get(old.id).occurred_at is None
        new = mem.remember("said long ago", user_id="u", occurred_at=EVENT)
        assert mem.get(new.id).occurred_at == EVENT
