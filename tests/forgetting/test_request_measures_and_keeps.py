"""Forget requests, values beside what stays: measured attributes known
by their unit or label, a keep clause that names an attribute whose value sits in the same turn, the
part of a turn a keep clause protects. Every sentence here is invented for the test; none is taken
from a dev or held-out file."""

from __future__ import annotations

from pathlib import Path

from tests.leaks import check_needles

from remnant.core.clock import ManualClock
from remnant.engine.memory import Memory
from remnant.understand.request_parts import measure_spans, measures_named, split_request
from remnant.understand.requests import parse_intent


def _m(kind: str, text: str) -> list[str]:
    return [text[s:e] for s, e in measure_spans(kind, text)]


def _raw(db_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.name.startswith(db_path.name))


def test_measured_values_by_unit_and_label() -> None:
    assert _m("weight", "我一米七二，一百四十斤左右") == ["一百四十斤"]
    assert _m("height", "我一米七二，一百四十斤左右") == ["一米七二"]
    assert _m("weight", "I'm 6'1, 205, and I wear a size 11 shoe") == ["205"]
    assert _m("height", "I'm 6'1, 205, and I wear a size 11 shoe") == ["6'1"]
    assert _m("weight", "currently 82 kg, hoping to get down to 75 by spring") == ["82 kg", "75"]
    assert _m("weight", "体重71公斤，想减到六十五") == ["71公斤", "六十五"]
    assert _m("blood_pressure", "last check 142/91, pulse 64") == ["142/91"]
    assert _m("heart_rate", "last check 142/91, pulse 64") == ["64"]
    assert _m("blood_sugar", "空腹血糖7.2，血压还行") == ["7.2"]
    assert _m("weight", "I walked 5 miles on 3/14") == []  # a date is not a reading
    assert measures_named("can you not keep how heavy i am") == ("weight",)
    assert measures_named("身高没关系") == ("height",)


def test_keep_clause_said_with_grand_or_enough() -> None:
    assert split_request("forget my shoe size. my height is grand")[1] == "my height is grand"
    assert split_request("drop my salary, the job title is enough")[1] == "the job title is enough"


def test_the_kept_measure_stays_beside_the_one_that_goes(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    body = mem.remember("我现在一米五八，一百一十二斤", user_id="u", key="note")
    mem.remember("老公一米八五", user_id="u", key="family")
    out = mem.forget("几斤那个不要记了，个子无所谓", user_id="u")
    assert out.rewritten == [body.id] and out.forgotten == []
    left = mem.get(body.id).content
    assert "一米五八" in left and "一百一十二斤" not in left
    mem.close()
    for needle in check_needles(["一百一十二斤"]):
        assert needle not in _raw(db_path)


def test_a_measure_found_by_its_unit_and_not_in_someone_elses_turn(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    stats = mem.remember("I'm 5'9 and 171 lbs after the holidays", user_id="u", key="misc")
    brother = mem.remember("My brother weighs his food on a little scale", user_id="u", key="family")
    dry = mem.forget("please don't remember my weight. height is fine", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [stats.id]
    assert dry.matches[0].new_content == "I'm 5'9 and [forgotten] after the holidays"
    assert brother.id not in {m.id for m in dry.matches}


def test_a_reading_beside_another_reading(mem: Memory) -> None:
    check = mem.remember(
        "At the clinic: blood pressure 131/84 and resting heart rate 58", user_id="u", key="x"
    )
    dry = mem.forget("drop the bp numbers, the heart rate one can stay", user_id="u", dry_run=True)
    assert [m.new_content for m in dry.matches] == [
        "At the clinic: blood pressure [forgotten] and resting heart rate 58"
    ]
    assert dry.matches[0].id == check.id


def test_a_kept_part_of_the_turn_keeps_its_value(mem: Memory) -> None:
    money = mem.remember("My allowance is $900 a month and my phone plan is $45", user_id="u", key="money")
    dry = mem.forget("forget what my allowance is. the phone plan you can keep", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [money.id]
    assert dry.matches[0].new_content == "My allowance is [forgotten] a month and my phone plan is $45"


def test_a_keep_clause_naming_an_attribute_keeps_its_value(mem: Memory) -> None:
    born = mem.remember("I was born June 3, 1972 in Galway", user_id="u", key="personal")
    intent = parse_intent("forget my date of birth, where I'm from is enough")
    assert intent.topics == ("birthday",) and "hometown" in intent.keep_topics
    dry = mem.forget("forget my date of birth, where I'm from is enough", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [born.id]
    assert "Galway" in (dry.matches[0].new_content or "") and "1972" not in (dry.matches[0].new_content or "")


def test_a_person_kept_is_not_an_attribute_kept() -> None:
    # "老公的留着" keeps the husband's things (whose), not every name in the turn
    assert parse_intent("我姐的生日别记了，老公的留着").keep_topics == ()


def test_pay_is_the_amount_in_a_part_that_says_pay(mem: Memory) -> None:
    job = mem.remember("I earn 64k plus a 5% bonus, and I've worked there 3 years", user_id="u", key="job")
    mem.remember("Rent on the flat is $1,400", user_id="u", key="home")
    dry = mem.forget("drop my pay figures, how long I've been there is fine", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [job.id]
    assert (
        dry.matches[0].new_content
        == "I earn [forgotten] plus a [forgotten] bonus, and I've worked there 3 years"
    )


def test_someone_elses_pay_is_not_the_users(mem: Memory) -> None:
    mine = mem.remember("我现在月薪一万二", user_id="u", key="salary")
    mem.remember("我老公工资比我多一点", user_id="u", key="family")
    dry = mem.forget("我工资多少别记了", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [mine.id] and not dry.matches[0].part


def test_deleting_is_all_it_takes_is_not_a_keep_clause() -> None:
    # "删了就行": the verb clause with 就行 is the request; the clause after it says what stays
    assert split_request("微信号删了就行，邮箱留着") == ("微信号删了就行", "邮箱留着", "")


def test_a_handle_word_without_a_handle_is_not_one(mem: Memory) -> None:
    mine = mem.remember("我微信是abc_7788，邮箱 li@example.com", user_id="u", key="contact")
    group = mem.remember("我们部门微信群我是管理员", user_id="u", key="misc")
    dry = mem.forget("微信号删了就行，邮箱留着", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [mine.id]
    assert group.id not in {m.id for m in dry.matches}
    assert "li@example.com" in (dry.matches[0].new_content or "") and "abc_7788" not in (
        dry.matches[0].new_content or ""
    )


def test_kept_dates_stay_beside_the_value_that_goes(mem: Memory) -> None:
    party = mem.remember(
        "The reunion is June 14 at the Old Mill, budget is about 6k", user_id="u", key="event"
    )
    dry = mem.forget("forget the budget bit, the date and place are fine", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [party.id]
    new = dry.matches[0].new_content or ""
    assert "June 14" in new and "6k" not in new
