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
        counts = mem.store.status_counts(mem.ledger.filter("ana", statuses=None))
        assert counts.get("active", 0) == 0 and counts.get("expired", 0) + counts.get("faded", 0) >= 2
        erased = mem.erase_user("ana")
        assert erased.verified and {"memories", "embeddings", "recall"} <= set(erased.checks)
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


def test_one_memory_shared_by_threads(pg_url: str) -> None:
    import threading

    mem = Memory(store=PostgresStore(pg_url))
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(25):
                mem.remember(f"thread {n} note {i}", user_id=f"user{n % 2}", key=f"k{n}-{i % 5}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert errors == []
        # each thread's 25 notes with 5 keys: 5 current per thread, 20 superseded
        assert mem.store.status_counts(mem.ledger.filter("user0", statuses=None)) == {
            "active": 10,
            "superseded": 40,
        }
        assert mem.verify_audit().ok
    finally:
        mem.close()


def test_cli_runs_against_postgres(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from click.testing import CliRunner

    from remnant.cli import cli

    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    runner = CliRunner()
    res = runner.invoke(cli, ["--db", pg_url, "remember", "Ana drinks green tea", "-u", "ana"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["--db", pg_url, "recall", "green tea", "-u", "ana", "--json"])
    assert res.exit_code == 0, res.output
    assert "green tea" in json.dumps(json.loads(res.output), ensure_ascii=False)
    res = runner.invoke(cli, ["--db", "postgresql://nobody@127.0.0.1:1/none", "recall", "x", "-u", "ana"])
    assert res.exit_code == 1 and "cannot connect to PostgreSQL" in res.output
