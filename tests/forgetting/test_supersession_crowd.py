"""Supersession rules for a user with many facts: a write meets every old statement of its
attribute, so a rule must only supersede the value the new statement replaces; when it cannot tell
which, it flags (invented sentences, EN/ZH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.memory import Memory
from remnant.understand.attributes import read, relation


@pytest.mark.parametrize(
    "text",
    [
        "finally moved to tidal, the sound is better",
        "we moved to a new phone plan with more data",
        "moved to a standing desk at the office",
    ],
)
def test_moved_to_a_non_place_is_no_change_of_home(text: str) -> None:
    r = read(text)
    assert r is None or r.attribute != "city"
    assert relation(text, "I live in Leeds") != "supersedes"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I live in Leeds", "we moved to Bristol in May"),
        ("我住在南京", "我们搬到合肥了"),
        ("我住在南京", "我现在在合肥"),
    ],
)
def test_a_move_to_a_place_still_supersedes(old: str, new: str) -> None:
    assert relation(new, old) == "supersedes"


@pytest.mark.parametrize(
    "new",
    ["现在在一家小公司做设计", "现在在郑州交社保", "现在在实验中学读初二"],
)
def test_zh_now_at_before_a_verb_of_work_or_study_is_no_home(new: str) -> None:
    assert relation(new, "我住在南京") != "supersedes"


@pytest.mark.parametrize(
    ("new", "same", "other"),
    [
        ("quit caffeine two weeks ago, headaches are gone", None, "I drink green tea all day"),
        ("I quit coffee in March", "I drink coffee every morning", "I drink black tea at lunch"),
        ("我戒咖啡了", "我每天喝咖啡", "我每天喝绿茶"),
    ],
)
def test_quitting_a_drink_ends_that_drink_only(new: str, same: str | None, other: str) -> None:
    r = read(new)
    assert r is not None and r.attribute == "drink" and r.negated
    if same is not None:
        assert relation(new, same) == "supersedes"
    assert relation(new, other) is None  # another drink: flagged, not superseded


@pytest.mark.parametrize(
    ("new", "named", "other"),
    [
        ("i left my job at the library", "I work at the library", "I work at Contoso"),
        ("已经从京东离职了", "我在京东工作", "我在腾讯上班"),
        ("去年从华为辞职了，现在在一家小公司", "我在华为上班", "我在阿里工作"),
    ],
)
def test_an_ending_that_names_the_employer_ends_only_that_one(new: str, named: str, other: str) -> None:
    assert relation(new, named) == "supersedes"
    assert relation(new, other) is None


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("quit Fabrikam last month and started at Northwind", "I work at Contoso"),
        ("stopped running after the injury, I swim now", "I go to the gym every day"),
        ("腿伤了以后不跑了，改游泳了", "我每天去健身"),
    ],
)
def test_a_change_that_ends_another_value_leaves_this_one_flagged(new: str, old: str) -> None:
    # the new statement ends something it names (Fabrikam, running) and sets a new value: an old
    # value it does not name is not the one replaced
    assert relation(new, old) is None


def test_a_change_that_ends_the_named_value_still_supersedes() -> None:
    assert relation("stopped running after the injury, I swim now", "I run every morning") == "supersedes"
    assert relation("不跑步了，改游泳了", "我每天跑步") == "supersedes"


@pytest.mark.parametrize(
    ("new", "ended", "kept"),
    [
        ("ben and i broke up last week", "I'm dating Ben", "I'm married"),
        ("我们分手了", "我恋爱了", "我结婚了"),
        ("分了，不想提", "我有对象了", "我离婚了"),
    ],
)
def test_a_breakup_ends_dating_not_a_marriage(new: str, ended: str, kept: str) -> None:
    assert relation(new, ended) == "supersedes"
    assert relation(new, kept) is None


def test_one_user_many_facts_only_the_replaced_memory_goes(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    home = mem.remember("I moved to Glasgow last year", user_id="kim")
    job = mem.remember("I work at Contoso", user_id="kim")
    coffee = mem.remember("I drink coffee every morning", user_id="kim")
    wed = mem.remember("I'm married", user_id="kim")
    clock.advance(days=1)
    mem.remember("moved to tidal since it came with my phone plan", user_id="kim")
    mem.remember("quit Fabrikam and started at Northwind", user_id="kim")
    mem.remember("I quit coffee, it wrecked my sleep", user_id="kim")
    mem.remember("ben and i broke up", user_id="kim")
    gone = [m.content for m in (home, job, coffee, wed) if mem.get(m.id).status == Status.SUPERSEDED]  # type: ignore[union-attr]
    assert gone == [coffee.content]
    mem.close()


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        ("switched to day shifts in spring", "I work nights", "supersedes"),
        ("night shifts at the depot, four on four off", "I work day shifts", None),
        ("改成晚班了", "我上早班", "supersedes"),
        ("在急诊科，三班倒", "我是夜班保安", None),
    ],
)
def test_a_shift_replaces_another_only_with_a_change_cue(new: str, old: str, expected: str | None) -> None:
    assert relation(new, old) == expected


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("王医生退休了，现在找他的徒弟李医生", "我学的是会计"),  # the doctor retired, not the user
        ("王主任退休了，现在换成李医生给我看", "我在腾讯做运营，天天加班"),
        ("宝宝上周出生了，七斤二两", "我老家是河南信阳的"),  # a birth is not where the user is from
        ("got moved to the cardiac ward for a couple of months, same hospital", "i live in berlin"),
        ("乐刻那张卡到期我就没续了，现在在家跟着帕梅拉练", "我现在住广州，天河"),  # at home, not a city
        ("繁花追完了，现在在看《漫长的季节》", "我现在住广州，天河"),  # watching, not living
        ("我们家两个娃，一个五岁一个三岁", "我今年三十二"),  # the children's ages
    ],
)
def test_someone_elses_change_or_a_non_place_retires_nothing(new: str, old: str) -> None:
    assert relation(new, old) != "supersedes"


def test_a_relation_word_without_wo_is_that_person() -> None:
    assert read("老公在阿里上班").subject == "partner"  # type: ignore[union-attr]
    assert read("妈妈退休了").subject == "mother"  # type: ignore[union-attr]
    assert read("我退休了").subject == "user"  # type: ignore[union-attr]
    assert read("我住在家乐福旁边").attribute == "city"  # type: ignore[union-attr]
