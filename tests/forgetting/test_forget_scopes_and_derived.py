"""Issue 27: forget requests take the right things. "N days / weeks ago" scopes read by the one
time resolver; a forgotten value goes from every memory drawn from the same turn (its facts, its
consolidated copy); a value inside a turn goes whole (an address with its town and postcode, a
password after its label), and nothing else in the turn goes with it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import remnant
from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.memory import Memory
from remnant.understand.requests import parse_intent
from remnant.understand.timeexpr import forget_scope, scope_window


def _texts(mem: Memory, user: str) -> str:
    """What the user still has (hidden memories are gone from the user's view), lower case."""
    statuses = [s for s in Status if s != Status.HIDDEN]
    return "\n".join(r.content for r in mem.list_memories(user, statuses=statuses, limit=1000)).lower()


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


@pytest.fixture
def plain(db_path: Path, clock: ManualClock) -> Iterator[remnant.Memory]:
    """The product's memory without the privacy layer (as the timelines run it): values in plain text."""
    with remnant.Memory(db_path, clock=clock, redactor=None) as m:
        yield m


def test_a_value_forgotten_in_a_turn_goes_from_the_fact_drawn_from_it(
    plain: remnant.Memory, clock: ManualClock
) -> None:
    out = plain.add("我老公叫阿伟，佢手机系 138 0013 6659，有急事打佢", user_id="u")
    assert out.facts, "the rules draw a fact from the turn"
    clock.advance(days=2)
    plain.forget("把我老公的电话删掉吧", user_id="u", hard=True, confirm=True)
    texts = _texts(plain, "u")
    assert "138 0013 6659" not in texts
    assert "阿伟" in texts  # the rest of the turn stays


def test_a_turn_forgotten_whole_takes_its_facts_and_nothing_else(
    plain: remnant.Memory, clock: ManualClock
) -> None:
    plain.add("my sister joanne and i had a huge row about mum's care", user_id="u")
    plain.add("my cat is named Biscuit and he is a menace", user_id="u")
    clock.advance(days=1)
    plain.forget("forget what i told you yesterday", user_id="u", hard=True, confirm=True)
    texts = _texts(plain, "u")
    assert "joanne" not in texts and "biscuit" not in texts  # both were yesterday
    plain.add("i run a print shop on queen st", user_id="u")
    plain.add("i have crohn's, flaring rn, ugh", user_id="u")
    clock.advance(days=1)
    plain.forget("can you forget all the medical stuff i told you", user_id="u", hard=True, confirm=True)
    texts = _texts(plain, "u")
    assert "crohn" not in texts and "print shop" in texts


@pytest.mark.parametrize(
    ("request_text", "topic", "scope"),
    [
        ("forget my SIN pls", "id_number", None),
        ("wait pls delete the pw i sent", "password", None),
        ("医疗相关的都删掉", None, "health"),
        ("can you wipe the stuff about money i owe", None, "money"),
    ],
)
def test_phrasings_are_data(request_text: str, topic: str | None, scope: str | None) -> None:
    intent = parse_intent(request_text)
    assert (topic in intent.topics) if topic else not intent.topics
    assert (scope in intent.scopes) if scope else True


def test_a_boyfriend_is_the_users_love_life_not_a_friends(plain: remnant.Memory) -> None:
    plain.add("跟男朋友吵架了，他叫马克", user_id="u")
    plain.add("我在兰开斯特大学读研，学的是环境科学", user_id="u")
    plain.add("我闺蜜最近交了男朋友", user_id="u")
    out = plain.forget("之前说的感情方面的事都删掉吧", user_id="u", dry_run=True, confirm=True)
    said = [m.content or "" for m in out.matches]
    assert any("马克" in c for c in said)
    assert not any("环境科学" in c or "闺蜜" in c for c in said)


@pytest.mark.parametrize(
    ("turn", "request_text", "gone", "kept"),
    [
        (
            "my address is 14 Cherry Tree Lane, Burnley BB11 3QT and my email is pat.holden52@mailbox.co.uk",
            "forget my address but keep my email",
            ["cherry tree lane", "bb11 3qt", "burnley"],
            ["pat.holden52@mailbox.co.uk"],
        ),
        (
            "my delivery address is 5F Block B, Xinghe Garden, 88 Meilin Rd, and im usually home after 7pm",
            "hey can you forget my address?",
            ["xinghe garden", "88 meilin", "block b"],
            ["after 7pm"],
        ),
        ("我银行卡密码老记不住，是 830516，你帮我记着", "银行卡密码那个赶紧给我删了", ["830516"], []),
        (
            "sandra's pregnant!! due in november, not telling anyone till 12 weeks tho",
            "please delete the pregnancy thing",
            ["pregnant", "november"],
            [],
        ),
        (
            "我儿子叫乐乐，在南山外国语学校读三年级三班",
            "学校那些信息别记了，名字可以留着",
            ["南山", "三年级三班"],
            ["乐乐"],
        ),
    ],
)
def test_a_value_inside_a_turn_goes_whole_and_only_it(
    plain: remnant.Memory, clock: ManualClock, turn: str, request_text: str, gone: list[str], kept: list[str]
) -> None:
    plain.add(turn, user_id="u")
    plain.add("whats the chinese for dog", user_id="u")
    clock.advance(days=3)
    plain.forget(request_text, user_id="u", hard=True, confirm=True)
    texts = _texts(plain, "u")
    assert [g for g in gone if g in texts] == []
    assert [k for k in kept if k.lower() not in texts] == []
    assert "chinese for dog" in texts


def test_everything_about_a_person_takes_the_turns_that_name_them(
    plain: remnant.Memory, clock: ManualClock
) -> None:
    plain.add("我做护士，轮三班，成日日夜颠倒", user_id="u")
    plain.add("同男朋友分手了，佢叫Jason，拍咗三年拖", user_id="u")
    plain.add("Jason仲成日send message嚟 好烦", user_id="u")
    clock.advance(days=5)
    plain.forget("关于我前男友嘅嘢全部删咗佢", user_id="u", hard=True, confirm=True)
    texts = _texts(plain, "u")
    assert "jason" not in texts and "三年拖" not in texts
    assert "三班" in texts


def test_the_new_readers_stay_linear_on_long_input(plain: remnant.Memory) -> None:
    """Bounded cost (generous budgets, not speed): an address run, a chain of continuing clauses
    and a family of linked memories, each read in one pass."""
    import time

    from remnant.understand.requests import builtin_pii

    began = time.monotonic()
    builtin_pii("my address is " + "Block B, " * 11_000 + "88 Meilin Rd")
    forget_scope("1 days ago, " * 10_000)
    assert time.monotonic() - began < 10.0
    began = time.monotonic()
    turn = "my pw is hard to remember, " + "it's Otter#2291, " * 6_000
    plain.remember(turn[:100_000], user_id="long")
    plain.forget("delete the password", user_id="long", hard=True, confirm=True)
    assert time.monotonic() - began < 30.0


@pytest.fixture(params=["sqlite", "postgres"])
def on_backend(
    request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock
) -> Iterator[remnant.Memory]:
    """The product's memory on each backend (the rewrites and purges of derived memories are the
    store's), without the privacy layer so values stay readable."""
    url = str(tmp_path / "r.db") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    with remnant.Memory(url, clock=clock, redactor=None) as m:
        yield m


def test_derived_memories_lose_the_value_on_every_backend(
    on_backend: remnant.Memory, clock: ManualClock
) -> None:
    mem = on_backend
    mem.add("我家住在布莱克本 Whalley Range 23号，我的微信号是 lishu_bb1968", user_id="u")
    mem.add("我老公叫阿伟，佢手机系 138 0013 6659，有急事打佢", user_id="u")
    clock.advance(days=2)
    mem.forget("地址忘掉吧，微信号留着", user_id="u", hard=True, confirm=True)
    mem.forget("把我老公的电话删掉吧", user_id="u", hard=True, confirm=True)
    texts = _texts(mem, "u")
    assert "whalley range" not in texts and "138 0013 6659" not in texts
    assert "lishu_bb1968" in texts and "阿伟" in texts


def test_a_turn_consolidated_today_was_still_said_weeks_ago(
    plain: remnant.Memory, clock: ManualClock
) -> None:
    """A consolidated copy is as old as its turn: "what I told you today" takes today's turns, not
    a month-old one that happened to be consolidated this morning."""
    said = clock.now()
    plain.add("i work as a midwife at the royal infirmary, mostly night shifts", user_id="u")
    for _ in range(20):  # the sweeps an application runs; the turn is consolidated before it fades
        clock.advance(days=1)
        plain.sweep()
    copies = [r for r in plain.list_memories("u", limit=100) if r.source == "consolidation"]
    assert copies and all(r.occurred_at == said for r in copies)
    plain.add("blood test came back this morning, cholesterol 6.1 apparently", user_id="u")
    clock.advance(hours=2)
    plain.forget("forget what i told you today", user_id="u", hard=True, confirm=True)
    texts = _texts(plain, "u")
    assert "6.1" not in texts
    assert "midwife" in texts
