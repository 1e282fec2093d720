"""The engine (Memory) on PostgreSQL: the same behaviour as on SQLite, end to end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine import Memory
from remnant.store.postgres import PostgresStore

pytestmark = pytest.mark.pg


def test_memory_lifecycle_on_postgres(pg_url: str) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    mem = Memory(store=PostgresStore(pg_url), clock=clock)
    try:
        a = mem.remember("Ana lives in Lisbon", user_id="ana", key="city")
        b = mem.remember("Ana lives in Porto", user_id="ana", key="city")
        mem.remember("我喜欢喝绿茶", user_id="ana")
        mem.remember("short lived note", user_id="ana", ttl=timedelta(days=1))
        old = mem.get(a.id)
        assert old is not None and old.status == Status.SUPERSEDED and old.superseded_by == b.id
        hits = [h.memory.id for h in mem.recall("where does Ana live", user_id="ana").hits]
        assert hits[0] == b.id and a.id not in hits
        assert mem.recall("绿茶", user_id="ana").hits
        clock.advance(days=400)
        report = mem.sweep()
        assert report is not None
        counts = mem.store.status_counts(mem._filter("ana", statuses=None))
        assert counts.get("active", 0) == 0 and counts.get("expired", 0) + counts.get("faded", 0) >= 2
        erased = mem.erase_user("ana")
        assert erased.checks == {"memories": 0, "embeddings": 0, "recall": 0}
        assert mem.verify_audit().ok
    finally:
        mem.close()


def test_substring_fallback_finds_parts_of_words_and_stopwords(pg_url: str) -> None:
    from remnant.core.model import MemoryRecord, new_id
    from remnant.store.base import MemoryFilter

    with PostgresStore(pg_url) as store:
        now = datetime(2026, 1, 1, tzinfo=UTC)
        pw = MemoryRecord(id=new_id(), user_id="ana", content="my password manager is great", created_at=now)
        who = MemoryRecord(id=new_id(), user_id="ana", content="who is there", created_at=now)
        tea = MemoryRecord(id=new_id(), user_id="ana", content="green tea", created_at=now)
        for r in (pw, who, tea):
            store.insert(r)
        assert [h[0] for h in store.lexical_search('"passw"', MemoryFilter())] == [pw.id]
        assert [h[0] for h in store.lexical_search('"who"', MemoryFilter())] == [who.id]
        hits = store.lexical_search('"tea" OR "manag"', MemoryFilter())
        assert [h[0] for h in hits] == [tea.id, pw.id]  # the full-text hit ranks above the substring one
