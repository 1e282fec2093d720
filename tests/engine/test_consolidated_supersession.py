"""A consolidated fact restates a turn said earlier: it supersedes an older statement only on the
pair model's crowded bar, never on the plain write bar a new statement meets. A copy's judgement
is permanent, and recall's current-state step already weighed the turn it copies."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from tests.engine.conftest import OpenMemory

from remnant.core.clock import ManualClock
from remnant.core.model import Status

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
DIET = "我家狗狗豆豆最近在吃肾病处方粮"
# the pair model reads this as replacing DIET with a probability over the write bar and under the
# crowded bar (0.86 with the shipped weights): both talk of the dog, one of its mood, one of its food
MOVE = "搬家了，新房子阳台很大，狗狗很开心"


@pytest.fixture
def product(product_defaults: None, open_mem: OpenMemory) -> Iterator[OpenMemory]:
    yield open_mem


def test_a_consolidated_copy_does_not_retire_what_it_barely_relates_to(product: OpenMemory) -> None:
    clock = ManualClock(T0)
    mem = product(clock)
    diet = mem.remember(DIET, user_id="u", kind="fact")
    clock.advance(timedelta(days=1))
    turn = mem.remember(MOVE, user_id="u", kind="episode", importance=0.9)
    for _ in range(12):  # the turn fades within days: the sweep consolidates it
        clock.advance(timedelta(days=1))
        mem.sweep()
    facts = [f for f in mem.list_memories("u", kinds=["fact"]) if f.metadata.get("derived_from") == [turn.id]]
    assert facts, "the turn was consolidated"
    assert mem.get(diet.id).status == Status.ACTIVE
