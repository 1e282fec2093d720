"""Consolidation of a salient turn whose extracted facts kept only a part of it (issue 27: "my son's
called Kieran, he's 12" gave only the age, and the name faded with the turn). A turn is skipped only
when its facts that last hold four fifths of its words. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, Memory
from remnant.engine.options import Draft, Message, Observation
from remnant.privacy import generate_key
from remnant.store.postgres import PostgresStore

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PARTIAL = "my nephew is called Bartholomew btw, he turns 7 in June"
WHOLE = "my sister Philippa lives in Aberdeen now"


class Reader:
    """A salient turn each, with the facts a reader drew: only the age from the first, all of the
    second (and a fact under the consolidation bar beside it, which fades and carries nothing)."""

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation:
        if message.content == PARTIAL:
            return Observation(0.9, facts=(Draft("User: he turns 7", {"key": "age", "importance": 0.6}),))
        return Observation(
            0.9,
            facts=(
                Draft("User's sister Philippa lives in Aberdeen now", {"importance": 0.7}),
                Draft("User: Philippa", {"importance": 0.2}),
            ),
        )


Open = Callable[[ManualClock], Memory]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def open_mem(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Open]:
    opened: list[Memory] = []
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)

    def make(clock: ManualClock) -> Memory:
        options: dict[str, object] = {"clock": clock, "embedder": None, "ingestor": Reader()}
        if request.param == "sqlite":
            mem = Memory(tmp_path / "m.db", **options)  # type: ignore[arg-type]
        else:
            store = PostgresStore(request.getfixturevalue("pg_url"))
            mem = Memory(store=store, **options)  # type: ignore[arg-type]
        opened.append(mem)
        return mem

    yield make
    for m in opened:
        m.close()


def test_a_turn_whose_facts_kept_a_part_is_consolidated_and_one_they_carry_is_not(open_mem: Open) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    for text in (PARTIAL, WHOLE):
        mem.add({"role": "user", "content": text}, user_id="ina")
    for _ in range(40):  # the turns fade within days; a sweep a day
        clock.advance(timedelta(days=1))
        mem.sweep()
    kept = [r.content for r, _ in mem.active("ina")]
    assert PARTIAL in kept  # its consolidated copy: the name outlives the turn
    assert WHOLE not in kept  # its lasting fact holds it: no second copy
    assert "User's sister Philippa lives in Aberdeen now" in kept
    copies = [r for r in mem.list_memories("ina", kinds=["fact"]) if r.source == "consolidation"]
    assert [r.content for r in copies] == [PARTIAL]
    hits = [h.memory.content for h in mem.recall("what is my nephew called", user_id="ina").hits]
    assert PARTIAL in hits
