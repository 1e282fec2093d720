"""Writers and readers on one engine from many threads never deadlock (store lock, then retriever lock)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from remnant.config import build_memory


def test_concurrent_writes_and_recalls_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    mem = build_memory(str(tmp_path / "t.db"))
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(40):
                mem.remember(f"user note {n}-{i} about hiking and tea", user_id=f"u{i % 5}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader(n: int) -> None:
        try:
            for i in range(40):
                mem.recall("hiking tea", user_id=f"u{(i + n) % 5}", limit=3)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=f, args=(n,), daemon=True) for n in range(4) for f in (writer, reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "threads deadlocked"
    assert not errors, errors
    assert mem.stats()["total"] == 160
    mem.close()


def test_the_vector_half_beside_the_lexical_half_ranks_the_same(tmp_path: Path) -> None:
    """``HybridRetriever(parallel=True)`` (the default) runs the vector half on another thread; the
    ranking is the one-thread ranking, and a recall inside a transaction sees its own uncommitted
    write (it stays on the transaction's thread)."""
    from datetime import UTC, datetime

    from remnant.core.clock import ManualClock
    from remnant.core.model import MemoryRecord, new_id
    from remnant.embed import get_embedder
    from remnant.engine import Memory
    from remnant.retrieval import HybridRetriever

    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    texts = [f"note {i} about {w} and tea" for i, w in enumerate(["hiking", "rain", "jazz", "bread"] * 10)]
    retriever = HybridRetriever(get_embedder("static"))
    assert retriever.parallel
    with Memory(tmp_path / "p.db", clock=clock, retriever=retriever) as mem:
        mem.remember_many({"content": t, "user_id": "ana"} for t in texts)
        for q in ("hiking tea", "jazz in the rain", "bread"):
            rankings = []
            for parallel in (True, False):
                retriever.parallel = parallel
                hits = mem.recall(q, user_id="ana", limit=10, touch=False, hints=False).hits
                rankings.append([(h.memory.id, h.score) for h in hits])
            assert rankings[0] == rankings[1] and rankings[0]
        retriever.parallel = True
        with mem.store.transaction():
            own = MemoryRecord(
                id=new_id(), user_id="ana", content="sourdough bread starter", created_at=clock.now()
            )
            mem.store.insert(own)
            retriever.on_write(mem.ledger, [own.id])
            inside = mem.recall("sourdough", user_id="ana", touch=False, hints=False).hits
            assert [h.memory.id for h in inside] == [own.id]
