"""The contradiction check of a big batch (issue 30, the write path flat in N): a batch past
``MAX_LATE_WRITES`` is judged under the lock, its nearest-neighbour probes answered from one
search of the stored vectors; it finds what the same writes one at a time find, on SQLite and
PostgreSQL, with the product's defaults (a small real embedder)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.forgetting.contradictions import MAX_LATE_WRITES
from remnant.privacy import generate_key
from remnant.store.base import MemoryFilter
from remnant.store.postgres import PostgresStore

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)

SEEDED = [
    "I live in Berlin",
    "My favourite colour is blue",
    "I have 2 cats",
    "I like tea",
    "I work as a teacher",
]
CHANGES = ["I live in Paris now", "My favourite colour is green", "I have 3 cats", "I don't like tea"]


def _filler(n: int) -> list[str]:
    """Facts that share no word with each other or with the ones above."""
    rng = random.Random(3)
    words: set[str] = set()
    while len(words) < 3 * n:
        words.add("".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3)))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return [" ".join(ordered[3 * i : 3 * i + 3]).capitalize() for i in range(n)]


def _batch() -> list[str]:
    texts = _filler(MAX_LATE_WRITES + 10)
    for i, change in enumerate(CHANGES):
        texts.insert(7 + 19 * i, change)
    return texts


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def two_memories(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Memory, Memory]]:
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
        url = request.getfixturevalue("pg_url")
        pair = (
            Memory(store=PostgresStore(url), clock=ManualClock(T0), tenant="batched", embedder="static"),
            Memory(store=PostgresStore(url), clock=ManualClock(T0), tenant="single", embedder="static"),
        )
    else:
        pair = (
            Memory(tmp_path / "batched.db", clock=ManualClock(T0), embedder="static"),
            Memory(tmp_path / "single.db", clock=ManualClock(T0), embedder="static"),
        )
    yield pair
    for mem in pair:
        mem.close()


def _state(mem: Memory) -> list[tuple[Any, ...]]:
    """Each memory by its text: status, and the texts it supersedes, contradicts, is contradicted by."""
    rows = mem.store.query(MemoryFilter(tenant=mem.tenant, user_id="ana", statuses=None), limit=1000)
    text = {r.id: r.content for r in rows}

    def named(r: Any, field: str) -> tuple[str, ...]:
        return tuple(sorted(text[i] for i in r.metadata.get(field, []) if i in text))

    return sorted(
        (r.content, r.status.value, *(named(r, f) for f in ("supersedes", "contradicts", "contradicted_by")))
        for r in rows
    )


def test_a_big_batch_supersedes_and_flags_what_the_writes_one_by_one_do(
    two_memories: tuple[Memory, Memory],
) -> None:
    batched, single = two_memories
    for mem in two_memories:
        mem.remember_many({"content": t, "user_id": "ana"} for t in SEEDED)
    texts = _batch()
    assert len(texts) > MAX_LATE_WRITES  # judged under the lock, its probes in one search
    batched.remember_many({"content": t, "user_id": "ana"} for t in texts)
    for t in texts:
        single.remember(t, user_id="ana")
    got = _state(batched)
    assert got == _state(single)
    # the check found the old values at all (the comparison is not of two empty results)
    by_text = {row[0]: row for row in got}
    changed = [t for t in SEEDED[:4] if by_text[t][1] == Status.SUPERSEDED.value or by_text[t][4]]
    assert len(changed) >= 3, got
    assert by_text["I work as a teacher"][1] == Status.ACTIVE.value


def test_neighbours_in_a_batch_block_are_the_neighbours_outside_it(
    two_memories: tuple[Memory, Memory],
) -> None:
    mem = two_memories[0]
    mem.remember_many({"content": t, "user_id": "ana"} for t in [*SEEDED, *_filler(40)])
    mem.remember_many({"content": t, "user_id": "bo"} for t in _filler(30))
    flt = MemoryFilter(tenant=mem.tenant, user_id="ana", statuses=(Status.ACTIVE,))
    probes = [*CHANGES, "I teach at a school", "Cats and tea"]
    retriever = mem.retriever
    outside = [retriever.neighbours(mem.ledger, t, flt, 10) for t in probes]
    assert any(outside)
    with mem.store.transaction(), retriever.neighbour_batch(mem.ledger, probes, 10):
        inside = [retriever.neighbours(mem.ledger, t, flt, 10) for t in probes]
    assert [[i for i, _ in hits] for hits in inside] == [[i for i, _ in hits] for hits in outside]
    for a, b in zip(inside, outside, strict=True):
        assert [round(s, 4) for _, s in a] == [round(s, 4) for _, s in b]
