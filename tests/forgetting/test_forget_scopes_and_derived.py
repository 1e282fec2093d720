"""Issue 27: forget requests take the right things. "N days / weeks ago" scopes read by the one
time resolver; a forgotten value goes from every memory drawn from the same turn (its facts, its
consolidated copy); a value inside a turn goes whole (an address with its town and postcode, a
password after its label), and nothing else in the turn goes with it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remnant.core.clock import ManualClock
from remnant.engine.memory import Memory
from remnant.understand.requests import parse_intent
from remnant.understand.timeexpr import forget_scope, scope_window


def _texts(mem: Memory, user: str) -> str:
    return "\n".join(r.content for r in mem.list_memories(user, limit=1000)).lower()


@pytest.mark.parametrize(
    ("request_text", "when"),
    [
        ("forget what I said eight days ago", "days:8"),
        ("忘掉我三天前说的", "days:3"),
        ("forget what i told you 2 weeks ago", "weeks:2"),
        ("删掉我两个星期前说的", "weeks:2"),
        ("把我十天前说的都删了", "days:10"),
        ("forget everything from two months ago", "months:2"),
    ],
)
def test_n_units_ago_is_a_time_scope(request_text: str, when: str) -> None:
    intent = parse_intent(request_text)
    assert intent.when == when
    assert intent.terms == ()  # "eight", "days", "ago" are the scope, not words to look for


def test_scope_windows_of_n_units_ago() -> None:
    now = datetime(2026, 12, 2, 10, tzinfo=UTC)
    day = datetime(2026, 11, 24, tzinfo=UTC)
    assert scope_window("days:8", now) == (day, datetime(2026, 11, 25, tzinfo=UTC))
    start, end = scope_window("weeks:2", now)
    assert start <= datetime(2026, 11, 18, tzinfo=UTC) < end and (end - start).days == 7
    assert scope_window("months:1", now)[0] == datetime(2026, 11, 1, tzinfo=UTC)
    assert forget_scope("two weekends ago") is None
    assert forget_scope("no time here") is None


def test_what_i_said_eight_days_ago_takes_that_day_only(mem: Memory, clock: ManualClock) -> None:
    mem.add("i teach year 4 at st anne's in ormskirk", user_id="u")
    clock.advance(days=2)
    mem.add("my sister joanne and i had a huge row about mum's care", user_id="u")
    clock.advance(days=3)
    mem.add("started learning the guitar this week", user_id="u")
    clock.advance(days=5)  # joanne was eight days ago
    mem.forget("forget what I said eight days ago", user_id="u", hard=True, confirm=True)
    texts = _texts(mem, "u")
    assert "joanne" not in texts
    assert "ormskirk" in texts and "guitar" in texts


def test_san_tian_qian_takes_that_day_only(mem: Memory, clock: ManualClock) -> None:
    mem.add("我每天早上六点去游泳", user_id="u")
    clock.advance(days=4)
    mem.add("今天跟婆婆吵架了，真想搬走", user_id="u")
    clock.advance(days=1)
    mem.add("今天游了1500米", user_id="u")
    clock.advance(days=2)  # 婆婆 was three days ago
    mem.forget("忘掉我三天前说的", user_id="u", hard=True, confirm=True)
    texts = _texts(mem, "u")
    assert "婆婆" not in texts
    assert "六点" in texts and "1500" in texts
