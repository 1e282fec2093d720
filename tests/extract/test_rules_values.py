"""The rules take a value only in its own shape (issue 27): a name must look like a name, a phone
number is taken whole, and chit-chat invents no facts (tests/extract/chitchat_turns.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remnant import Memory
from remnant.extract.rules import RuleExtractor, name_value, phone_value

CHITCHAT = Path(__file__).with_name("chitchat_turns.jsonl")
rules = RuleExtractor()


def facts(text: str) -> dict[str, str]:
    return {f.key: f.value for f in rules.extract(text)}


@pytest.mark.parametrize(
    "text",
    [
        "you can call me there",
        "call me at 5pm",
        "call me tomorrow if that's easier",
        "call me whenever you want",
        "my name is spelled wrong on the invoice",
        "my name is on the list, right?",
        "我叫了外卖",
        "我叫你一声你就过来",
        "我叫车去机场了",
    ],
)
def test_no_name_from_words_that_are_not_a_name(text: str) -> None:
    assert "name" not in facts(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My name is Anna Berg", "Anna Berg"),
        ("call me Jo", "Jo"),
        ("you can call me Ana", "Ana"),
        ("Please call me Dr. Smith", "Dr. Smith"),
        ("My name is Ana Lopez, nice to meet you", "Ana Lopez"),
        ("Hi, my name is Ana and I live in Lisbon.", "Ana"),
        ("my name is bob", "bob"),  # a writer who types in lower case
        ("my name is 陈静, nice to meet you", "陈静"),
        ("我叫王小明，今年30岁", "王小明"),
        ("我的名字是李雷", "李雷"),
    ],
)
def test_a_name_is_read_in_its_shape(text: str, name: str) -> None:
    assert facts(text)["name"] == name


def test_a_name_ends_where_the_name_does() -> None:
    assert name_value("Ana tomorrow at noon", "Call me Ana tomorrow at noon") == "Ana"
    assert name_value("there", "you can call me there") is None


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("我的手机号是 138 1234 5678", "138 1234 5678"),
        ("我的电话是 138-1234-5678，谢谢", "138-1234-5678"),
        ("my phone number is +1 (415) 555-0134 thanks", "+1 (415) 555-0134"),
        ("my phone number is +49 170 1234567.", "+49 170 1234567"),
        ("我的手机号是13812345678", "13812345678"),
    ],
)
def test_a_phone_number_is_taken_whole(text: str, phone: str) -> None:
    assert facts(text)["phone_number"] == phone


def test_phone_shape_bounds() -> None:
    assert phone_value("broken") is None
    assert phone_value("2 years old") is None
    assert phone_value("9" * 100_000) is None  # too many digits for a phone number, read in one pass


def test_a_phone_number_is_stored_whole_through_memory(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        out = mem.add([{"role": "user", "content": "我的手机号是 138 1234 5678"}], user_id="li")
        (fact,) = [f for f in out.facts if f.key == "phone_number"]
        assert mem.rehydrate(fact.id).endswith("138 1234 5678")


def test_chitchat_invents_no_facts(tmp_path: Path) -> None:
    """At most 1 % of chit-chat turns (greetings, remarks, questions, "call me at 5pm") give a fact,
    through the product (``Memory(path)`` with defaults)."""
    lines = [json.loads(line) for line in CHITCHAT.read_text(encoding="utf-8").splitlines() if line.strip()]
    turns = [row for row in lines if "text" in row]
    assert len(turns) >= 100 and {t["lang"] for t in turns} == {"en", "zh"}
    invented: list[tuple[str, list[str]]] = []
    with Memory(tmp_path / "m.db") as mem:
        for i, turn in enumerate(turns):
            out = mem.add([{"role": "user", "content": turn["text"]}], user_id=f"chat{i}")
            if out.facts:
                invented.append((turn["text"], [f.content for f in out.facts]))
    assert len(invented) <= 0.01 * len(turns), invented


REMARKS = Path(__file__).with_name("chitchat_turns_2.jsonl")


def test_a_remark_of_the_moment_stores_nothing_but_itself(tmp_path: Path) -> None:
    """A remark shaped like a fact ("my brain is mush today", "i love this song", 我的脑子是浆糊:
    tests/extract/chitchat_turns_2.jsonl) leaves one memory, the turn itself, through the product."""
    lines = [json.loads(line) for line in REMARKS.read_text(encoding="utf-8").splitlines() if line.strip()]
    turns = [row["text"] for row in lines if "text" in row]
    assert len(turns) >= 40
    invented: list[tuple[str, list[str]]] = []
    with Memory(tmp_path / "m.db") as mem:
        for i, turn in enumerate(turns):
            user = f"chat{i}"
            mem.add([{"role": "user", "content": turn}], user_id=user)
            stored = [mem.rehydrate(r.id) for r in mem.list_memories(user, limit=100)]
            if stored != [turn]:
                invented.append((turn, stored))
    assert not invented, invented


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("my car is a white BYD Dolphin", "car", "a white BYD Dolphin"),
        ("my hair is brown", "hair", "brown"),
        ("my dog is a labrador called Max", "dog", "a labrador called Max"),
        ("I love hiking", "likes_hiking", "yes"),
        ("i really enjoy cooking thai food", "likes_cooking_thai_food", "yes"),
        ("我喜欢爬山", "likes_爬山", "yes"),
        ("我的爱好是画画", "爱好", "画画"),
        ("我的猫是一只橘猫", "猫", "一只橘猫"),
    ],
)
def test_a_lasting_value_is_still_read(text: str, key: str, value: str) -> None:
    assert facts(text).get(key) == value
