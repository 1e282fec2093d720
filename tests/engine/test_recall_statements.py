"""One-pass recall: how many SQL statements one recall runs (issue 17).

On the code before one-pass recall a 4-hit hybrid recall with touch and hints ran 21 statements (two
full retrievals, one of them for the faded hints; each hit read 3-4 times). Now: the lexical
candidates, the vector file's state and the candidates' filter, one read of the ranked records, and
the reinforcement transaction (one re-read of the hits under the write lock, one update each).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.sqlite_trace import ours

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever

TEXTS = [
    "I like green tea",
    "tea with milk is fine",
    "my sister drinks tea",
    "tea in the garden",
    "coffee at work",
]


def _fill(mem: Memory, clock: ManualClock) -> None:
    for text in TEXTS:
        mem.remember(text, user_id="ana")
    faded = mem.remember("old tea ceremony notes", user_id="ana", importance=0.0, kind="episode")
    clock.advance(days=60)  # the low-importance episode fades; the facts stay
    assert mem.strength(faded.id) < mem.decay.recall_threshold
    mem.recall("tea", user_id="ana")  # loads the vector index outside the count


@contextmanager
def sqlite_statements(mem: Memory) -> Iterator[list[str]]:
    seen: list[str] = []
    store = mem.store

    def trace(statement: str) -> None:
        if ours(statement):  # not FTS5's own bookkeeping
            seen.append(statement)

    if hasattr(store, "set_trace_callback"):  # every connection, the read pool's too
        store.set_trace_callback(trace)
    else:  # the code before the read pool: one connection
        store.connection.set_trace_callback(trace)  # type: ignore[attr-defined]
    try:
        yield seen
    finally:
        if hasattr(store, "set_trace_callback"):
            store.set_trace_callback(None)
        else:
            store.connection.set_trace_callback(None)  # type: ignore[attr-defined]


def _hybrid(path: Path | str, clock: ManualClock) -> Memory:
    return Memory(path, clock=clock, retriever=HybridRetriever(get_embedder("static")))


def test_hybrid_recall_is_one_pass_on_sqlite(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with _hybrid(tmp_path / "r.db", clock) as mem:
        _fill(mem, clock)
        with sqlite_statements(mem) as seen:
            result = mem.recall("tea", user_id="ana")
        assert len(result.hits) == 4
        assert [h.reason for h in result.faded] == ["faded"]  # the hint came from the same candidates
        selects = [s for s in seen if s.lstrip().upper().startswith(("SELECT", "WITH"))]
        # lexical candidates; the vector file's state and the candidates' filter; the first hits'
        # entity rows (the entity round: none here, so no lookup); the ranked records; the re-read
        # under the lock
        assert len(selects) == 6, seen
        assert len(seen) == 6 + 2 + len(result.hits), seen  # + BEGIN/COMMIT + one update per hit
        assert len(seen) < 21

        with sqlite_statements(mem) as seen:
            mem.recall("tea", user_id="ana", touch=False)
        assert len(seen) == 5, seen


def test_lexical_recall_is_one_pass(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Memory(tmp_path / "l.db", clock=clock) as mem:
        _fill(mem, clock)
        with sqlite_statements(mem) as seen:
            result = mem.recall("tea", user_id="ana", touch=False)
        assert len(result.hits) == 4 and len(result.faded) == 1
        assert len(seen) == 2, seen  # the FTS query and one read of the ranked records


def test_faded_hints_match_a_separate_hint_search(tmp_path: Path) -> None:
    """The hints from the shared candidates are the ones the old separate search found."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with _hybrid(tmp_path / "h.db", clock) as mem:
        _fill(mem, clock)
        expired = mem.remember("tea voucher", user_id="ana", ttl="1d")
        clock.advance(days=2)
        result = mem.recall("tea", user_id="ana", touch=False)
        assert {h.id for h in result.faded} >= {expired.id}
        assert all(h.memory.status.value == "active" for h in result.hits)
        assert expired.id not in {h.memory.id for h in result.hits}
        # with include_faded nothing is a hint: the faded memory is a hit
        wide = mem.recall("tea", user_id="ana", touch=False, include_faded=True, limit=10)
        assert wide.faded == []


def test_narrow_head_falls_back_to_a_strict_search(tmp_path: Path) -> None:
    """When faded matches crowd the widened head, live hits still fill the limit."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Memory(tmp_path / "n.db", clock=clock) as mem:
        for i in range(15):
            mem.remember(f"tea tea tea note {i}", user_id="ana", importance=0.0, kind="episode")
        clock.advance(days=60)
        live = [
            mem.remember(f"a long sentence that mentions tea once, number {i}", user_id="ana")
            for i in range(3)
        ]
        result = mem.recall("tea", user_id="ana", limit=3, touch=False)
        assert {h.memory.id for h in result.hits} == {r.id for r in live}
        assert len(result.faded) == 3


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import psycopg

    seen: list[str] = []

    def wrap(cls: Any) -> None:
        real: Callable[..., Any] = cls.execute

        def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            text = query if isinstance(query, str) else repr(query)
            # the pool's liveness check sends an empty query, and a connection the pool opens for
            # the parallel vector half looks up pgvector's types and sets its session settings
            # once: connection set-up, not recall (whether the pool opens one is a race)
            if text.strip() and "FROM pg_type" not in text and not text.lstrip().startswith("SET "):
                seen.append(text)
            return real(self, query, *args, **kwargs)

        monkeypatch.setattr(cls, "execute", execute)

    wrap(psycopg.Cursor)
    return seen


def test_hybrid_recall_is_one_pass_on_postgres(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with _hybrid(pg_url, clock) as mem:
        _fill(mem, clock)
        seen = _spy(monkeypatch)
        result = mem.recall("tea", user_id="ana", touch=False)
        monkeypatch.undo()
        assert len(result.hits) == 4 and len(result.faded) == 1
        # the full-text candidates in one statement ("tea" has full-text hits: no substring fill),
        # the vector search (filter in SQL; the scope's size is known from the writes' checks),
        # the first hits' entity rows (the entity round), one read of the ranked records
        assert len(seen) == 4, "\n".join(s[:160] for s in seen)
