"""Consolidation writes claims, not copies (issue 27): a salient turn about to fade becomes a fact
holding the clauses that last, read from when the turn was said; a value said to hold for a while
(a room "till thursday"), a question to the assistant and a request are left out. The product
(``Memory`` with its defaults: the rule ingestor and its models), on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.engine.conftest import OpenMemory as Open  # the product on each backend (conftest)

from remnant import ManualClock, Memory
from remnant.core.model import MemoryRecord
from remnant.engine.forgetting import SweepPolicy
from remnant.engine.forgetting.consolidation import ConsolidationPolicy

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
STAY = "we're at the Harbour Inn, room 31 till thursday, and I get seasick on small boats"
ASKED = "we're at the Harbour Inn, room 31 till thursday. what's good to eat around here?"
WHOLE = "I have a standing desk at work and my back has been much better since"


def _said(mem: Memory, text: str, user: str) -> MemoryRecord:
    mem.add({"role": "user", "content": text}, user_id=user)
    (turn,) = [r for r in mem.list_memories(user, kinds=["episode"]) if r.content == text]
    return turn


def _fade(mem: Memory, clock: ManualClock, policy: SweepPolicy | None = None) -> None:
    for _ in range(30):  # the turns fade within days; a sweep a day
        clock.advance(timedelta(days=1))
        mem.sweep(policy=policy)


def _consolidated(mem: Memory, user: str) -> list[MemoryRecord]:
    return [r for r in mem.list_memories(user, kinds=["fact"]) if r.source == "consolidation"]


def test_a_value_said_for_a_while_is_left_out_and_what_lasts_is_kept(open_mem: Open) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    turn = _said(mem, STAY, "ines")
    assert turn.importance >= 0.5 and turn.expires_at is None  # salient; the rules at write time read no end
    _fade(mem, clock)
    (fact,) = _consolidated(mem, "ines")
    assert fact.content == "and I get seasick on small boats"
    assert fact.metadata["derived_from"] == [turn.id]
    assert fact.metadata["clauses_left_out"] == ["expiry"]
    assert fact.occurred_at == T0  # as old as the turn
    assert fact.expires_at is None
    active = " ".join(r.content for r, _ in mem.active("ines"))
    assert "room 31" not in active and "Harbour Inn" not in active
    audit = mem.audit_log(user_id="ines", action="consolidate")
    assert len(audit) == 1 and turn.id in audit[0].memory_ids
    hits = [h.memory.content for h in mem.recall("do I get seasick", user_id="ines").hits]
    assert fact.content in hits


def test_a_question_left_beside_a_lapsed_value_consolidates_nothing(open_mem: Open) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    turn = _said(mem, ASKED, "ines")
    assert turn.importance >= 0.5
    _fade(mem, clock)
    assert _consolidated(mem, "ines") == []
    assert mem.audit_log(user_id="ines", action="consolidate") == []


def test_a_turn_whose_every_clause_lasts_is_copied_as_before(open_mem: Open) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    turn = _said(mem, WHOLE, "ines")
    _fade(mem, clock)
    (fact,) = _consolidated(mem, "ines")
    assert fact.content == WHOLE
    assert "clauses_left_out" not in fact.metadata
    assert fact.metadata["derived_from"] == [turn.id]


def test_the_setting_off_copies_the_turn_as_before(open_mem: Open) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock)
    _said(mem, STAY, "ines")
    _fade(mem, clock, SweepPolicy(consolidate=ConsolidationPolicy(clauses=False)))
    assert [r.content for r in _consolidated(mem, "ines")] == [STAY]


SHAPES = (
    "we're at the Harbour Inn, room {n} till thursday, and I get seasick on small boats",
    "the gym's guest code is {n}, good till friday, and my membership is under my work email",
    "my nephew turns {n} in June, what should I get him?",
    "I have a standing desk at work and my back has been much better since I moved to flat {n}",
)


@pytest.mark.parametrize("reader", [False, True])
def test_the_sweep_reads_the_clauses_of_many_turns_in_bounded_time(tmp_path: Path, reader: bool) -> None:
    # 200 salient turns, a sweep a day for two weeks: bounded cost, not speed (a generous budget on a
    # loaded box; the figures are in docs/benchmarks/understanding.md)
    clock = ManualClock(T0)
    texts = [SHAPES[i % len(SHAPES)].format(n=100 + i) for i in range(200)]
    with Memory(tmp_path / "m.db", clock=clock) as mem:
        mem.add([{"role": "user", "content": t} for t in texts], user_id="ines")
        policy = SweepPolicy(consolidate=ConsolidationPolicy(expiry_reader=reader))
        started = time.perf_counter()
        for _ in range(14):
            clock.advance(timedelta(days=1))
            mem.sweep(policy=policy)
        assert time.perf_counter() - started < 120.0
        facts = [r.content for r in _consolidated(mem, "ines")]
    bad = [f for f in facts if "room 1" in f or "Harbour Inn" in f or f.endswith("?")]
    assert facts and not bad, bad[:5]
