"""An expiry said in a turn that also says something lasting expires only the temporary part:
the value said to expire is gone after the period, the rest of the turn is still recalled."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, Memory, Status
from remnant.extract.expiry import split_expiry

ALL = [Status.ACTIVE, Status.FADED, Status.EXPIRED, Status.SUPERSEDED]


@pytest.fixture
def product(db_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    with Memory(db_path, clock=clock) as m:
        yield m


def _stored(mem: Memory) -> str:
    return " | ".join(r.content for r in mem.list_memories("ana", statuses=ALL, limit=1000))


@pytest.mark.parametrize(
    ("turn", "code", "lasting", "question", "minutes"),
    [
        (
            "the code is 4471, good for 15 minutes, the account is under my work email",
            "4471",
            "work email",
            "which email is the account under?",
            15,
        ),
        (
            "the wifi password is tulip42, it's only valid for an hour. my sister Ana lives in Porto",
            "tulip42",
            "Porto",
            "where does Ana live?",
            60,
        ),
        (  # the value names the thing; the question after it goes with it, the bank stays
            "i bank w Northshore Credit Union. just got a text w code 882901 valid 10 min, is this a scam??",
            "882901",
            "Northshore",
            "which bank am I with?",
            10,
        ),
        (  # filler beside what holds: the clause that matters is kept
            "验证码 917364，五分钟内有效，帮我记一下我马上要输。另外我在曼彻斯特大学读硕士",
            "917364",
            "曼彻斯特大学",
            "我在哪个大学读书",
            5,
        ),
        (
            "验证码是4471，十分钟内有效，账号绑定的是我的工作邮箱",
            "4471",
            "工作邮箱",
            "账号绑定的是哪个邮箱",
            10,
        ),
    ],
)
def test_only_the_temporary_part_expires(
    product: Memory, clock: ManualClock, turn: str, code: str, lasting: str, question: str, minutes: int
) -> None:
    out = product.add(turn, user_id="ana")
    assert out.episodes[0].expires_at == clock.now() + timedelta(minutes=minutes)
    kept = [f for f in out.facts if lasting in f.content]
    assert kept and all(f.expires_at is None and code not in f.content for f in kept)
    assert all(f.metadata["from_episode"] == out.episodes[0].id for f in kept)
    clock.advance(timedelta(minutes=minutes + 1))
    assert not any(code in h.memory.content for h in product.recall("what is the code?", user_id="ana").hits)
    hits = product.recall(question, user_id="ana").hits
    assert hits and lasting in hits[0].memory.content
    product.sweep()  # what was said to expire is purged at its end: the turn with the value goes
    assert code not in _stored(product)
    assert lasting in _stored(product)


@pytest.mark.parametrize(
    "turn",
    [
        "the door code is 4471, valid for ten minutes",  # one clause of substance: the whole turn
        "the link expires in 2 hours, thanks lol",  # the rest is filler
        "验证码十分钟内有效，谢谢啦",
        "I waited ten minutes for the bus, the account is under my work email",  # no expiry at all
        "the link to my resume is live for 48 hours only, then I'm taking it down",  # follows from it
        "the coupon in my app expires in 3 hours, should i use it on shoes?",  # a question about it
        "I'm staying in Osaka for 10 days, so suggest stuff near Namba",  # a state: the turn is temporary
        "未来三天别给我打电话，我在闭关写论文",
        "链接两小时后失效，所以赶紧下载",
    ],
)
def test_a_turn_the_period_bounds_whole_is_not_split(turn: str) -> None:
    assert split_expiry(turn) is None


def test_a_whole_turn_expiry_is_unchanged(product: Memory, clock: ManualClock) -> None:
    out = product.add("the door code is 4471, valid for ten minutes", user_id="ana")
    assert out.episodes[0].expires_at == clock.now() + timedelta(minutes=10)
    assert not [f for f in out.facts if f.source == "extract:expiry_split"]
    clock.advance(timedelta(minutes=11))
    assert not product.recall("door code", user_id="ana").hits


def test_the_split_names_both_parts() -> None:
    got = split_expiry("the code is 4471, good for 15 minutes, the account is under my work email")
    assert got is not None and got.ttl == timedelta(minutes=15)
    assert "4471" in got.temporary and "good for 15 minutes" in got.temporary
    assert got.lasting == "the account is under my work email"


def test_a_turn_consolidated_before_its_expiry_makes_a_fact_that_ends_with_it(
    product: Memory, clock: ManualClock
) -> None:
    ep = product.remember(
        "the gate code is 9921 for the week",
        user_id="ana",
        kind="episode",
        importance=0.8,
        ttl=timedelta(days=7),
    )
    clock.advance(timedelta(days=4))  # it fades after ~5.6 days: consolidated on this sweep
    product.sweep()
    facts = product.list_memories("ana", kinds=["fact"])
    assert len(facts) == 1 and facts[0].metadata["derived_from"] == [ep.id]
    assert facts[0].expires_at == ep.expires_at
    clock.advance(timedelta(days=3, minutes=1))
    assert not any("9921" in h.memory.content for h in product.recall("gate code", user_id="ana").hits)


@pytest.mark.parametrize(
    ("turn", "code", "lasting"),
    [
        # the period's clause names a thing ("card") but not the value: the value before it expires
        (
            "they gave me a guest badge, pin 8812, just for this week till my own card arrives, "
            "also my desk is on the fourth floor",
            "8812",
            "fourth floor",
        ),
        # a time of day is no value: "6pm" does not keep the clause its own
        ("the printer code is 5519, only good till 6pm today, our team is called Falcon", "5519", "Falcon"),
    ],
)
def test_a_validity_said_of_the_value_before_it_takes_that_value(turn: str, code: str, lasting: str) -> None:
    got = split_expiry(turn, datetime(2026, 3, 2, 9, tzinfo=UTC))  # a Monday morning
    assert got is not None
    assert code in got.temporary and code not in got.lasting
    assert lasting in got.lasting


@pytest.mark.parametrize(
    ("clause", "said_of_before"),
    [
        ("only good till 6pm today", True),
        ("just for this week", True),
        ("今天下午有效", True),
        ("只这周有效", True),
        ("only the code 4471 works", False),  # a value of its own
        ("验证码今天有效", False),  # it names the thing itself
        ("my sister lives in Porto", False),
    ],
)
def test_what_a_validity_clause_is_said_of(clause: str, said_of_before: bool) -> None:
    from remnant.extract.expiry import said_of_before as reads

    assert reads(clause) is said_of_before
