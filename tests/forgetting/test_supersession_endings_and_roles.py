"""Supersession rules: endings that name the old thing, a role's new holder, breakups, swaps and
cancellations, weight and pay, one mechanism per test (sentences invented for the tests, not
taken from the development files)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.memory import Memory
from remnant.understand.attributes import ends_named, next_in_role, read, relation


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("We pay for Hulu every month", "Cancelled Hulu yesterday, nothing left to watch"),
        ("I play squash with Dev on Thursdays", "I quit squash, my back can't take it"),
        ("I drink Red Bull before every shift", "Kicked the Red Bull habit for good"),
        ("I bank with Nationwide", "closed my nationwide account and went digital"),
        ("We're flying to Lisbon in June", "Lisbon is off, the hotel cancelled on us"),
        ("i'm a lemonade person, two cans a day", "i don't even drink lemonade anymore"),
        ("my flat is on 9 mill lane", "the mill lane flat isn't mine anymore"),
        ("我每天喝两瓶雪碧", "雪碧彻底戒了，改喝白水"),
        ("我在学吉他，每周上一节课", "吉他先放下了，工作太忙"),
        ("我一直在用华为平板", "华为平板送人了"),
        ("我每周去打台球", "现在不打台球了"),
        ("我在吃二甲双胍", "医生让我把二甲双胍停了"),
    ],
)
def test_an_ending_that_names_the_old_thing_supersedes(old: str, new: str) -> None:
    assert ends_named(new, old)
    assert relation(new, old) == "supersedes"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("We pay for Hulu every month", "Cancelled the gym, it was a waste"),  # another thing
        ("I play squash with Dev", "if I quit squash I'd have no hobby left"),  # a hypothetical
        ("I drink Red Bull daily", "my brother quit Red Bull"),  # someone else
        ("我在腾讯上班，做前端", "腾讯视频会员又到期了，续不续呢"),  # a question, and another thing
        ("我每天喝两瓶雪碧", "可乐戒了"),
    ],
)
def test_an_ending_of_something_else_does_not(old: str, new: str) -> None:
    assert relation(new, old) != "supersedes"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My landlord is Mrs. Ortiz", "our new landlord wants the rent by bank transfer"),
        ("我领导是个老同志", "新来的领导特别年轻"),
        ("我女朋友叫小芳", "现在的女朋友是做设计的"),
        ("My therapist is Dr. Moss", "Dr. Moss retired, so I'm on a waiting list again"),
        ("my gp is dr abbas", "dr abbas retired last month"),
        ("我的医生是张大夫", "张大夫退休了"),
    ],
)
def test_a_new_holder_of_a_role_or_the_old_one_leaving(old: str, new: str) -> None:
    assert next_in_role(new, old)
    assert relation(new, old) == "supersedes"


def test_a_role_not_the_users_is_left_alone() -> None:
    assert not next_in_role("Mr. Bell retired", "I met Mr. Bell at the bakery")  # no role of mine
    assert relation("our new landlord is strict", "My manager is Priya") != "supersedes"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I live in Leeds", "I used to live in York before uni"),  # the past
        ("我在京东上班", "毕业前在美团实习过三个月"),  # 过: what was, not what is
        ("I live in Leeds", "This week I'm staying with my aunt in Hull"),  # a few days' exception
        ("我每天开车上班", "这两天限行，只能坐地铁去公司"),
        ("我戒烟一年了", "昨晚做梦梦到自己在抽烟"),  # a dream
        ("我住在西安", "我把书架搬到阳台了"),  # a thing moved, not the home
        ("I'm 41", "I'm 6'1 in socks"),  # a height
    ],
)
def test_not_changes(old: str, new: str) -> None:
    assert relation(new, old) != "supersedes"


def test_a_birthday_today_is_still_an_age() -> None:
    assert relation("I'm 42 today", "I'm 41") == "supersedes"


def test_employer_said_with_the_job_and_after_xianzai() -> None:
    old, new = read("我在网易做测试"), read("我现在在小红书上班")
    assert old is not None and old.attribute == "employer" and old.value == "网易"
    assert new is not None and new.attribute == "employer" and new.value == "小红书"
    assert relation("我现在在小红书上班", "我在网易做测试") == "supersedes"


def test_in_the_engine_an_ending_retires_only_the_statement_it_names(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 3, 1, tzinfo=UTC))
    mem = Memory(tmp_path / "m.db", clock=clock)
    hulu = mem.remember("We pay for Hulu every month", user_id="u")
    squash = mem.remember("I play squash on Thursdays", user_id="u")
    clock.advance(days=1)
    mem.remember("Cancelled Hulu, nothing left to watch", user_id="u")
    assert mem.get(hulu.id).status == Status.SUPERSEDED
    assert mem.get(squash.id).status == Status.ACTIVE


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My girlfriend Nadia loves hiking", "Nadia and I broke up over the summer"),
        ("我女朋友叫小敏", "跟小敏分手了"),
        ("I use a Dell XPS at home", "finally swapped my Dell for a Framework"),
        ("我们公司是单休", "公司取消单休了"),
        ("我每天喝奶茶", "我把奶茶换成柠檬水了"),
    ],
)
def test_breakups_swaps_and_cancellations(old: str, new: str) -> None:
    assert relation(new, old) == "supersedes"


def test_a_breakup_with_someone_else_is_not_the_users_partner() -> None:
    assert relation("Nadia and I broke up", "My girlfriend Jo loves hiking") != "supersedes"


@pytest.mark.parametrize(
    ("old", "new", "attribute"),
    [
        ("I'm 88 kilos at the moment", "weighed in at 79 this morning", "weight"),
        ("我现在150斤", "今天称了一下138", "weight"),
        ("I make about 52k a year", "with the promotion my base is 61k", "salary"),
        ("我月薪八千", "涨薪了，现在到手一万", "salary"),
    ],
)
def test_weight_and_pay(old: str, new: str, attribute: str) -> None:
    r = read(new)
    assert r is not None and r.attribute == attribute
    assert relation(new, old) == "supersedes"


def test_a_change_by_or_a_sack_is_not_a_weight() -> None:
    assert relation("瘦了10斤", "我现在150斤") != "supersedes"
    w = read("买了一袋50斤的米")
    assert w is None or w.attribute != "weight"


def test_a_home_said_with_zhu_alone_and_a_new_place() -> None:
    assert relation("我现在住拱墅了", "我住萧山，离地铁近") == "supersedes"
    assert read("我住院了") is None or read("我住院了").attribute != "city"  # type: ignore[union-attr]
    assert read("我住学校宿舍") is None or read("我住学校宿舍").attribute != "city"  # type: ignore[union-attr]
    assert relation("post goes to my new place: 7 quay street", "I live at 40 Park Row") == "supersedes"
