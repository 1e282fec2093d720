"""An end point said in words sets the expiry at that point, through the product (``Memory`` with an
injected clock): "good until friday", 只在今天有效, 到周五就不能用了. The clock fixture stands on
Thursday 1 January 2026, 09:00 UTC."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, Memory, Status
from remnant.core.errors import NotFoundError
from remnant.extract.expiry import expiry_until, split_expiry

THU = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
END_THU, END_FRI, END_SUN = (datetime(2026, 1, d, tzinfo=UTC) for d in (2, 3, 5))


@pytest.fixture
def product(db_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    with Memory(db_path, clock=clock) as m:
        yield m


@pytest.mark.parametrize(
    ("turn", "until"),
    [
        ("the wifi voucher is good until friday", END_FRI),
        ("the guest pass only works till we check out sunday", END_SUN),
        ("the parking code works until tonight", END_THU),
        ("这个券只在今天有效", END_THU),
        ("优惠码到周五就不能用了", END_FRI),
        ("停车券只能用到周日", END_SUN),
        ("这张卡下周五之前有效", datetime(2026, 1, 10, tzinfo=UTC)),
    ],
)
def test_an_end_point_sets_the_expiry(
    product: Memory, clock: ManualClock, turn: str, until: datetime
) -> None:
    assert clock.now() == THU
    out = product.add(turn, user_id="ana")
    assert out.episodes[0].expires_at == until
    clock.advance(timedelta(hours=1))
    assert product.recall(turn, user_id="ana").hits
    clock.advance(until - clock.now() - timedelta(minutes=1))
    assert product.sweep() and product.get(out.episodes[0].id).status != Status.EXPIRED
    clock.advance(timedelta(minutes=2))
    assert not product.recall(turn, user_id="ana").hits
    product.sweep()  # what was said to expire is purged at its end: stored nowhere
    with pytest.raises(NotFoundError):
        product.get(out.episodes[0].id)


@pytest.mark.parametrize(
    "turn",
    [
        "I'll call you till friday",  # not a validity
        "the store is open till friday",  # a place's hours, said of no information
        "was the code valid until friday?",  # asked
        "if the pass is good until friday we can go twice",  # supposed
        "the code was valid until friday",  # past
        "the pass is valid through this wednesday",  # this week's Wednesday has passed
        "我到周五就不能用电脑了",  # 不能用 + something else
        "这个码到周五还能用吗",  # asked
        "今天有效率很高",  # 有效率, efficiency
        "我今天可以用电脑",
        "如果券只在今天有效就好了",
    ],
)
def test_what_is_not_an_end_point_sets_nothing(product: Memory, turn: str) -> None:
    assert expiry_until(turn, THU) is None
    assert product.add(turn, user_id="ana").episodes[0].expires_at is None


def test_a_weekday_said_on_that_day_ends_tonight() -> None:
    friday = datetime(2026, 1, 2, 20, 0, tzinfo=UTC)
    assert expiry_until("good until friday", friday) == timedelta(hours=4)
    assert expiry_until("到周五就不能用了", friday) == timedelta(hours=4)
    assert expiry_until("这周五前有效", datetime(2026, 1, 3, tzinfo=UTC)) is None  # passed


def test_an_end_point_in_a_turn_that_says_something_lasting(product: Memory, clock: ManualClock) -> None:
    turn = "the code is 4471, good until friday, the account is under my work email"
    split = split_expiry(turn, THU)
    assert split is not None and "4471" in split.temporary and "4471" not in split.lasting
    out = product.add(turn, user_id="ana")
    assert out.episodes[0].expires_at == END_FRI
    clock.advance(END_FRI - THU + timedelta(minutes=1))
    assert not any("4471" in h.memory.content for h in product.recall("the code", user_id="ana").hits)
    hits = product.recall("which email is the account under?", user_id="ana").hits
    assert hits and "work email" in hits[0].memory.content


def test_the_end_point_reader_is_linear() -> None:
    """The documented maximum (100,000 characters) of digits, spaces, CJK numerals and words
    stays within a generous budget (2 s each on a shared 2-core machine; it takes milliseconds)."""
    for text in (
        "good until " + "7 " * 50_000,
        "到" * 50_000 + "周五",
        "valid till " + "we " * 33_000 + "friday",
        "一二三四五六七八九十" * 10_000,
        ("the code is 4471, good until friday, " + "x, " * 33_000)[:100_000],
    ):
        started = time.perf_counter()
        expiry_until(text[:100_000], THU)
        assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize(
    "turn",
    [
        "这个优惠券码SZ88QX只在今天有效，记一下。我每周一都去山姆进货",  # a habit in another sentence
        "the wifi voucher is good until friday. I go to the gym every monday",
    ],
)
def test_another_sentence_does_not_cancel_an_end_point(turn: str) -> None:
    assert expiry_until(turn, THU) is not None


@pytest.mark.parametrize(
    ("turn", "day"),
    [
        ("the guest wifi works until tuesday the 13th", 13),  # not the coming tuesday, the 6th
        ("we're at the lodge till saturday 17th, room 9", 17),
        ("the loaner car is mine until monday, the 12th", 12),
    ],
)
def test_a_weekday_with_its_day_of_the_month_ends_on_that_date(turn: str, day: int) -> None:
    from remnant.extract.expiry import end_point_said

    end = datetime(2026, 1, day + 1, tzinfo=UTC)  # through the end of that day
    assert end_point_said(turn, THU) == end - THU
    assert expiry_until(turn, THU) in (None, end - THU)
