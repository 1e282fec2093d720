"""Forget requests, which value of several in one turn (issue 15, dev set 5): the part the request
selects by the person it names or by its own words, and in that part the value by kind, after its
words, in a bracket, a name holding the word, a list item, or by its shape; quoted and spelt values.
Every sentence here is invented for the test; none is taken from a dev or held-out file."""

from __future__ import annotations

from pathlib import Path

from remnant.core.clock import ManualClock
from remnant.engine.memory import Memory
from remnant.understand.request_parts import parts, person_words, plain_values, value_after
from remnant.understand.requests import parse_intent


def _new(mem: Memory, request: str) -> list[str | None]:
    return [m.new_content for m in mem.forget(request, user_id="u", dry_run=True).matches]


def test_parts_and_shapes() -> None:
    text = "I'm allergic to walnuts, kiwi and wasp stings."
    assert [text[a:b] for a, b in parts(text)] == ["I'm allergic to walnuts", "kiwi", "wasp stings."]
    zh = "我哥在宁波，在吉利上班；我弟还在读书。"
    assert [zh[a:b] for a, b in parts(zh)] == ["我哥在宁波", "在吉利上班", "我弟还在读书"]
    assert person_words("My niece Tilly and my uncle Bo") == {"niece", "uncle"}
    assert person_words("老三在读初一") == {"老三"}
    for piece, value in [("his locker ends in 2291", "2291"), ("外甥刚满11", "11"), ("在美团上班", "美团")]:
        assert [piece[s:e] for s, e in plain_values(piece, 0, len(piece), set())] == [value]
    text = "I rent a lock-up (bay 7C) behind the station."
    assert [text[s:e] for s, e in value_after(text, [text.index("lock-up") + 7])] == ["bay 7C"]
    assert parse_intent("forget how old my niece is").value_kind == "age"
    assert parse_intent("forget 'Blue Heron' please").values == ("Blue Heron",)
    assert parse_intent("drop old.mail@example.net").values == ("old.mail@example.net",)


def test_which_person_of_two_in_one_turn(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    mem.remember("My nephew Arlo is 6 and my niece Tilly just turned 11.", user_id="u", key="family")
    mem.remember("I cycle to work most days.", user_id="u", key="commute")
    assert _new(mem, "forget how old my niece is") == [
        "My nephew Arlo is 6 and my niece Tilly just turned [forgotten]."
    ]
    mem.remember("我在药店上班，我老公在顺丰。", user_id="z", key="work")
    out = mem.forget("老公在哪上班别记了", user_id="z", dry_run=True)
    assert [m.new_content for m in out.matches] == ["我在药店上班，我老公在[forgotten]。"]


def test_which_item_by_the_request_words(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    mem.remember("I'm allergic to walnuts, kiwi and wasp stings.", user_id="u", key="allergies")
    mem.remember("My Monzo card ends in 8812 and my Halifax one ends in 3307.", user_id="u", key="money")
    mem.remember("We fly to Oslo on the 3rd and stay at the Hotel Fjordlys.", user_id="u", key="trip")
    mem.remember("My mum gardens every weekend.", user_id="u", key="family")
    assert _new(mem, "turns out I am not allergic to kiwi after all. please remove that one") == [
        "I'm allergic to walnuts, [forgotten] and wasp stings."
    ]
    assert _new(mem, "forget the Monzo digits") == [
        "My Monzo card ends in [forgotten] and my Halifax one ends in 3307."
    ]
    assert _new(mem, "forget the hotel, we cancelled it") == [
        "We fly to Oslo on the 3rd and stay at the [forgotten]."
    ]
    # a subject, not one value of it: the turn goes as it matched
    assert _new(mem, "forget everything about my mum") == [None]


def test_the_attribute_words_choose_the_part(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    mem.remember("我哥在宁波，在吉利上班，做销售。", user_id="z", key="family")
    mem.remember("我每天早上跑步。", user_id="z", key="habits")
    out = mem.forget("我哥在哪家公司上班这个别记了", user_id="z", dry_run=True)
    assert [m.new_content for m in out.matches] == ["我哥在宁波，在[forgotten]上班，做销售。"]


def test_quoted_and_spelt_values(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    ex = mem.remember("我前任叫周启明，分手后我搬去了厦门。", user_id="z", key="relationships")
    mem.remember("我在一家书店打工。", user_id="z", key="work")
    out = mem.forget("把'周启明'这个名字删了", user_id="z")
    assert mem.get(ex.id).content == "我前任叫[forgotten]，分手后我搬去了厦门。"
    assert out.count == 1
    mem.remember("I left Leeds in 2019 after splitting up with my ex, Corin.", user_id="u", key="life")
    mem.remember("My Twitch name is MossyOwl and I stream on Fridays.", user_id="u", key="online")
    assert _new(mem, "I don't want Corin's name stored anywhere") == [
        "I left Leeds in 2019 after splitting up with my ex, [forgotten]."
    ]
    # "my Twitch name": the word names what has the name, it is not the name
    assert mem.forget("forget my twitch name", user_id="u", dry_run=True).matches[0].new_content != (
        "My [forgotten] name is MossyOwl and I stream on Fridays."
    )


def test_the_kept_part_and_the_facet_word(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    mem.remember(
        "我私人邮箱是mei.home@example.com，店里的邮箱是shop@example.com。", user_id="z", key="contact"
    )
    out = mem.forget("私人那个邮箱别存了，店里的留着", user_id="z", dry_run=True)
    assert [m.new_content for m in out.matches] == ["我私人邮箱是[forgotten]，店里的邮箱是shop@example.com。"]
    mem.remember("My mobile is 555-0110 and my office line is 555-0177.", user_id="u", key="contact")
    mem.remember("My brother's number is 555-0199.", user_id="u", key="family")
    assert _new(mem, "forget my office number, I quit") == [
        "My mobile is 555-0110 and my office line is [forgotten]."
    ]


def test_the_attribute_said_again_without_its_noun(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    mem.remember("My brother's birthday is May 2 and my dad's is October 30.", user_id="u", key="family")
    mem.remember("My dad still drives a taxi.", user_id="u", key="family")
    assert _new(mem, "forget my dad's birthday") == [
        "My brother's birthday is May 2 and my dad's is [forgotten]."
    ]
    mem.remember("我哥生日是5月2号，我爸的是10月30号。", user_id="z", key="family")
    mem.remember("我爸还在开出租。", user_id="z", key="family")
    out = mem.forget("我爸的生日别记了", user_id="z", dry_run=True)
    assert [m.new_content for m in out.matches] == ["我哥生日是5月2号，我爸的是[forgotten]。"]
