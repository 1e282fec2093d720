"""Forget requests, the mechanisms that do not depend on one author's phrasings (issue 15, dev set 4):
reasons and bare verbs, words no memory holds, values by shape and by the words around them,
keyed memories that say more than their value, whose, scopes with examples, lists, time windows.
Every sentence here is invented for the test; none is taken from a dev or held-out file."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.leaks import check_needles

from remnant.core.clock import ManualClock
from remnant.engine.memory import Memory
from remnant.understand.request_parts import split_request, value_after, value_spans
from remnant.understand.requests import parse_intent


def _spans(kind: str, text: str) -> list[str]:
    return [text[s:e] for s, e in value_spans(kind, text)]


def _raw(db_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.name.startswith(db_path.name))


@pytest.mark.parametrize(
    ("request_text", "main", "reason"),
    [
        ("forget my gym times, I changed gyms", "forget my gym times", "i changed gyms"),
        ("Please drop my shoe size. It's embarrassing.", "please drop my shoe size", "it's embarrassing"),
        (
            "i went on and on about my landlord. please forget it",
            "my landlord , please forget it",
            "",
        ),
        ("别记我的车牌 怕被人看到", "别记我的车牌", "怕被人看到"),
        ("honestly, forget the tennis thing", "forget the tennis thing", "honestly"),
    ],
)
def test_reasons_and_bare_verbs(request_text: str, main: str, reason: str) -> None:
    got = split_request(request_text.lower())
    assert got[0] == main and got[2] == reason


def test_keep_parts_are_not_reasons() -> None:
    assert split_request("forget my old number (not my wife's)")[1] == "not my wife's"
    assert split_request("forget my personal phone, just the work one")[1] == "just the work one"
    # "not ready …" is a reason, not what stays
    assert split_request("forget the wedding plans, not ready to share")[2] == "not ready to share"


def test_value_shapes() -> None:
    assert _spans("name", "Our son Teo is 4 and my sister Ruth minds him.") == ["Teo", "Ruth"]
    assert _spans("name", "我闺女叫小满，今年三岁。") == ["小满"]
    assert _spans("name", "I'm 52, married to Ingeborg for years.") == ["Ingeborg"]
    assert _spans("age", "I'm 52, married to Ingeborg for years.") == ["52"]
    assert _spans("age", "我今年47了，身体还行。") == ["47"]
    assert _spans("amount", "rent is £980 a month and I owe about 3万块") == ["£980", "3万块"]
    assert _spans("amount", "I ran 10k on Sunday") == []  # a distance, not money
    assert _spans("code", "My booking ref is QX7731 for the ferry.") == ["QX7731"]
    assert _spans("med", "The GP put me on propranolol and sertraline, and it helps.") == [
        "propranolol and sertraline"
    ]
    assert _spans("med", "我每天吃一粒阿托伐他汀，晚上吃。") == ["阿托伐他汀"]
    text = "My Twitch name is LoudOwl42 and my Steam one is quiet."
    assert [text[s:e] for s, e in value_after(text, [text.index("Twitch") + 6])] == ["LoudOwl42"]
    zh = "我常去的那家理发店是剪艺坊，一次八十。"
    assert [zh[s:e] for s, e in value_after(zh, [zh.index("理发店") + 3])] == ["剪艺坊"]


def test_words_no_memory_holds_are_how_not_what(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    kayak = mem.remember("I bought a second-hand kayak last summer.", user_id="u", key="purchase")
    mem.remember("My brother lives in Dundee.", user_id="u", key="family")
    dry = mem.forget("pls forget the kayak thing, I feel silly about it lol", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [kayak.id]
    # a name or a number the request gives stays: nothing stored about Oslo, nothing forgotten
    assert mem.forget("forget the kayak trip to Oslo", user_id="u", dry_run=True).count == 0
    # most of the words stored nowhere, even in lower case: no guess
    assert mem.forget("forget the kayak race in oslo harbour", user_id="u", dry_run=True).count == 0


def test_a_value_the_request_gives_is_cut_from_the_turn(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    both = mem.remember(
        "Ring me on 0161 496 0733, the old landline 0161 496 0802 is dead.", user_id="u", key="phones"
    )
    mem.remember("I collect vinyl, mostly jazz.", user_id="u", key="hobby")
    out = mem.forget("forget 0161 496 0802, that line is gone", user_id="u")
    assert out.rewritten == [both.id] and out.forgotten == []
    left = mem.get(both.id).content
    assert "0802" not in left and "0161 496 0733" in left
    assert "0161 496 0802" not in str(mem.audit_log(action="forget_request")[-1].details)
    mem.close()
    for needle in check_needles(["0161 496 0802"]):
        assert needle not in _raw(db_path)


def test_a_facet_finds_its_value_next_to_the_request_words(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    trip = mem.remember(
        "My train to York on Friday is the 9:15, seat reference QK4402.", user_id="u", key="travel"
    )
    gym = mem.remember("我常去的游泳馆是蓝鲸，一次三十块。", user_id="u", key="swimming")
    debt = mem.remember("去年借了我姐两万块装修，还差一半。", user_id="u", key="loan")
    mem.remember("My sister Nell lives in York.", user_id="u", key="sister")
    dry = mem.forget("delete the seat reference, no need to keep it", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [trip.id]
    assert dry.matches[0].new_content == "My train to York on Friday is the 9:15, seat reference [forgotten]."
    dry = mem.forget("游泳馆的名字别记了，价格可以留着", user_id="u", dry_run=True)
    assert [m.new_content for m in dry.matches] == ["我常去的游泳馆是[forgotten]，一次三十块。"]
    assert gym.id == dry.matches[0].id
    dry = mem.forget("借了多少钱你别记，跟我姐借的这事知道就行", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [debt.id]
    assert dry.matches[0].new_content == "去年借了我姐[forgotten]装修，还差一半。"


def test_a_keyed_memory_that_says_more_keeps_the_rest(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    kid = mem.remember(
        "Our son Teo is 4 and goes to Little Oaks Nursery, his best mate there is Ravi.",
        user_id="u",
        key="child_school",
    )
    home = mem.remember(
        "Me and my partner Sam live at 41 Ferry Lane, Alnmouth, with two cats.",
        user_id="u",
        key="home_address",
    )
    dob = mem.remember("我女儿乐乐是2020年3月9号生的，属鼠。", user_id="u", key="child_birthday")
    remark = mem.remember(
        "My passport is K7719240, I always forget where I put it.", user_id="u", key="passport"
    )
    dry = mem.forget("forget the name of my son's nursery", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [kid.id]
    assert (
        dry.matches[0].new_content == "Our son Teo is 4 and goes to [forgotten], his best mate there is Ravi."
    )
    dry = mem.forget("forget my home address", user_id="u", dry_run=True)
    assert [m.new_content for m in dry.matches] == [
        "Me and my partner Sam live at [forgotten], with two cats."
    ]
    assert dry.matches[0].id == home.id
    dry = mem.forget("把女儿的出生日期删了", user_id="u", dry_run=True)
    assert [(m.id, m.new_content) for m in dry.matches] == [(dob.id, "我女儿乐乐是[forgotten]生的，属鼠。")]
    # only a remark about the value beside it: the memory is the value, it goes whole
    dry = mem.forget("forget my passport number", user_id="u", dry_run=True)
    assert [(m.id, m.part) for m in dry.matches] == [(remark.id, False)]


def test_whose_value_in_a_shared_turn(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    both = mem.remember(
        "我的邮箱是qiu88@example.net，我导师的邮箱是lab.head@example.org。", user_id="u", key="email"
    )
    out = mem.forget("导师的邮箱别记了，我自己的留着", user_id="u", dry_run=True)
    assert [m.new_content for m in out.matches] == [
        "我的邮箱是qiu88@example.net，我导师的邮箱是[forgotten]。"
    ]
    assert out.matches[0].id == both.id


def test_a_subject_with_examples_and_new_scopes(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    mum = mem.remember("My mum moved into sheltered housing in Leeds.", user_id="u", key="parents")
    bro = mem.remember("My brother Amir just had twins.", user_id="u", key="sibling")
    mem.remember("I'm a pharmacist in Harrogate.", user_id="u", key="occupation")
    fam = mem.forget(
        "delete what I said about my family? mum, brother, all of them", user_id="u", dry_run=True
    )
    assert {m.id for m in fam.matches} == {mum.id, bro.id}
    fly = mem.remember("I'm flying to Bilbao in April for a conference.", user_id="u", key="travel_plan")
    mem.remember("I charge £45 an hour for tutoring.", user_id="u", key="rate")
    assert [m.id for m in mem.forget("forget my trips please", user_id="u", dry_run=True).matches] == [fly.id]
    money = mem.forget("wipe the money stuff", user_id="u", dry_run=True)
    assert [m.key for m in money.matches] == ["rate"]  # an amount says it is about money
    love = Memory(db_path.with_name("love.db"), clock=clock)
    mine = love.remember("我跟前任彻底断了联系。", user_id="v", key="ex_partner")
    love.remember("我同事最近交了女朋友。", user_id="v", key="coworker")
    assert [m.id for m in love.forget("我感情方面的事都忘了吧", user_id="v", dry_run=True).matches] == [
        mine.id
    ]


def test_a_list_matches_any_item_and_synonyms_only_when_needed(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    scan = mem.remember("The scan showed a cyst on my ovary.", user_id="u", key="health")
    op = mem.remember("Surgery is booked for the 3rd.", user_id="u", key="health")
    mem.remember("I run a bakery with my cousin.", user_id="u", key="work")
    dry = mem.forget("forget the cyst and the surgery", user_id="u", dry_run=True)
    assert {m.id for m in dry.matches} == {scan.id, op.id}
    assert parse_intent("forget the cyst and the surgery").any_of == (("cyst",), ("surgery",))
    w = mem.remember("我现在八十公斤，想瘦到七十。", user_id="u", key="weight")
    mem.remember("我身高一米七八。", user_id="u", key="height")
    assert [m.id for m in mem.forget("体重那个删了，身高留着", user_id="u", dry_run=True).matches] == [w.id]


def test_last_week_is_one_to_two_weeks_ago(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    ten = mem.remember("I argued with my landlord about the deposit.", user_id="u")
    clock.advance(days=8)
    two = mem.remember("I signed up for a pottery class.", user_id="u")
    clock.advance(days=2)
    dry = mem.forget("forget what I said last week, I was stressed", user_id="u", dry_run=True)
    assert [m.id for m in dry.matches] == [ten.id] and two.id not in {m.id for m in dry.matches}
