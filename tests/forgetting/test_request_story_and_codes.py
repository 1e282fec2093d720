"""Issue 27, round 9: forget requests take exactly what was asked, through ``Memory(path)``.

- the next turn of a sitting that points back at someone ("he says…", 他还…) goes with a turn the
  request takes; a turn days later, or one holding what the request keeps, does not;
- a PIN, a password, a sort code name a code value: the value goes, the rest of the turn stays, and
  so do the facts drawn from the turn that the request does not match;
- a value is never cut inside a phone number;
- "but do keep the email address" keeps the e-mail, not the word "address";
- tests, scans, tablets and 复诊 are health matters.

The turns are written for these tests (none is copied from an evaluation file).
"""

from __future__ import annotations

import pytest

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.memory import Memory
from remnant.understand.requests import builtin_pii, goes_on, parse_intent


def _texts(mem: Memory, user: str) -> str:
    """What the user still has (hidden memories are gone from the user's view), lower case."""
    statuses = [s for s in Status if s != Status.HIDDEN]
    return "\n".join(r.content for r in mem.list_memories(user, statuses=statuses, limit=1000)).lower()


@pytest.mark.parametrize(
    ("turn", "points_back"),
    [
        ("he says I owe him £300 for the panels", True),
        ("and she told everyone it was my fault", True),
        ("She's been like that for years", True),
        ("他还让我周末去帮他搬家", True),
        ("而且她一直不回我消息", True),
        ("heads up, I might be late on friday", False),
        ("the theatre was lovely", False),
        ("另外一件事，我下周出差", False),
    ],
)
def test_a_turn_that_points_back(turn: str, points_back: bool) -> None:
    assert goes_on(turn) is points_back


def test_the_next_turn_of_the_sitting_goes_with_the_story(mem: Memory, clock: ManualClock) -> None:
    mem.add("I had a shouting match with my neighbour Phil about the fence", user_id="u")
    clock.advance(minutes=30)
    mem.add("he says I owe him £300 for the new panels", user_id="u")
    clock.advance(days=1)
    mem.add("booked swimming lessons for saturday mornings", user_id="u")
    clock.advance(days=1)
    mem.forget("forget what I told you about my neighbour, I was just venting", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "phil" not in texts and "£300" not in texts
    assert "swimming lessons" in texts


def test_a_turn_days_later_is_another_story(mem: Memory, clock: ManualClock) -> None:
    mem.add("I had a shouting match with my neighbour Phil about the fence", user_id="u")
    clock.advance(days=3)
    mem.add("he is a lovely dog, the vet says his hip is fine", user_id="u")
    clock.advance(days=1)
    mem.forget("forget what I told you about my neighbour", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "phil" not in texts
    assert "vet says his hip is fine" in texts


def test_a_continuation_holding_what_is_kept_stays(mem: Memory, clock: ManualClock) -> None:
    mem.add("my brother Sean wants to sell the caravan", user_id="u")
    clock.advance(minutes=10)
    mem.add("he also said he'd pay for the boat trip in june", user_id="u")
    clock.advance(days=1)
    mem.forget("forget the stuff about my brother, but keep the boat trip", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "caravan" not in texts
    assert "boat trip" in texts


def test_a_pin_goes_and_the_rest_of_the_turn_stays(mem: Memory, clock: ManualClock) -> None:
    mem.add(
        "i work evenings at the leisure centre on mill lane, and my staff locker pin is 5521",
        user_id="u",
    )
    clock.advance(days=1)
    mem.add("so sleepy today", user_id="u")
    clock.advance(days=1)
    mem.forget("forget the pin i typed, shouldn't have put it here", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "5521" not in texts
    assert "leisure centre" in texts


def test_a_sort_code_goes_and_the_bank_branch_stays(mem: Memory, clock: ManualClock) -> None:
    mem.add("I bank with Barclays at the branch in Keswick, and the sort code is 20-17-44.", user_id="u")
    clock.advance(days=2)
    mem.forget(
        "please forget the sort code I gave you. My daughter says never to share it.",
        user_id="u",
        confirm=True,
    )
    texts = _texts(mem, "u")
    assert "20-17-44" not in texts
    assert "keswick" in texts


def test_a_phone_number_goes_whole(mem: Memory, clock: ManualClock) -> None:
    mem.add("the plumber's number is 0161 555 0199, he's coming on thursday", user_id="u")
    clock.advance(days=1)
    mem.forget("forget the plumber's number, we found someone else", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "555 0199" not in texts and "0199" not in texts


def test_do_keep_says_what_stays() -> None:
    intent = parse_intent("Please forget my home address, but do keep the email address.")
    assert intent.topics == ("address",)
    assert intent.keep_terms == ("email",)
    assert "appointment" in parse_intent("delete the bank details, the appointment may remain").keep_terms


def test_the_email_stays_when_the_address_goes(mem: Memory, clock: ManualClock) -> None:
    mem.add("My home address is 4 Larch Close, Kendal LA9 6QT, in case you need it.", user_id="u")
    clock.advance(hours=2)
    mem.add("And my email is r.dunmore@example.org.", user_id="u")
    clock.advance(days=3)
    mem.forget(
        "I'd rather you did not keep my home address. Please forget it, but do keep the email address.",
        user_id="u",
        confirm=True,
    )
    texts = _texts(mem, "u")
    assert "larch close" not in texts
    assert "r.dunmore@example.org" in texts


def test_tests_and_tablets_are_health_matters(mem: Memory, clock: ManualClock) -> None:
    mem.add("got a colonoscopy booked for next month, not looking forward to it", user_id="u")
    clock.advance(days=1)
    mem.add("on iron tablets now, twice a day with breakfast", user_id="u")
    clock.advance(days=1)
    mem.add("my granddaughter Isla starts nursery in september", user_id="u")
    clock.advance(days=2)
    mem.forget("forget all the medical stuff i told you", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "colonoscopy" not in texts and "iron tablets" not in texts
    assert "isla" in texts


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("我家住在海淀区清河小营园二区 快递别放门口", "海淀区清河小营园二区"),
        ("我们在绍兴，住解放路那边", "住解放路"),
        ("deliveries go to Rua das Flores 28, 3º dto", "Rua das Flores 28"),
    ],
)
def test_addresses_said_without_a_street_number_first(text: str, address: str) -> None:
    assert [text[s:e] for label, s, e in builtin_pii(text) if label == "ADDRESS"] == [address]


def test_a_stay_in_hospital_is_no_address() -> None:
    assert builtin_pii("我住院了三天，今天出院") == []


def test_an_address_without_a_number_goes_and_the_phone_stays(mem: Memory, clock: ManualClock) -> None:
    mem.add("我家住在海淀区清河小营园二区 手机 137 0000 1234 快递老放错", user_id="u")
    clock.advance(days=2)
    mem.forget("把我地址忘掉吧 手机号留着", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "小营园" not in texts
    assert "137 0000 1234" in texts


def test_a_health_request_takes_the_follow_up_visit(mem: Memory, clock: ManualClock) -> None:
    mem.add("最近在吃布洛芬 医生说先吃一周", user_id="u")
    clock.advance(days=2)
    mem.add("下周五要去复诊 好麻烦", user_id="u")
    clock.advance(days=2)
    mem.add("下个月要去青岛玩 已经订好酒店了", user_id="u")
    clock.advance(days=3)
    mem.forget("那些看病吃药的事都别记了", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "布洛芬" not in texts and "复诊" not in texts
    assert "青岛" in texts


def test_a_daughter_in_law_is_family(mem: Memory, clock: ManualClock) -> None:
    mem.add("我每周三去社区跳广场舞", user_id="u")
    clock.advance(days=2)
    mem.add("儿媳妇老是嫌我做饭太咸", user_id="u")
    clock.advance(days=2)
    mem.forget("家里那些事你就当没听过吧", user_id="u", confirm=True)
    texts = _texts(mem, "u")
    assert "儿媳妇" not in texts
    assert "广场舞" in texts


def test_qing_kong_is_clearing_everything() -> None:
    intent = parse_intent("你把记住的关于我的所有东西都清空吧，想重新开始")
    assert intent.everything and intent.hard
    assert intent.terms == ()
