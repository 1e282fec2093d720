"""Expiry said in words: what sets a TTL and what does not (EN/ZH), and the development file."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from remnant.extract.expiry import expiry_in_words

DEV = Path(__file__).with_name("dev_expiry.jsonl")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("this code is valid for ten minutes", 600),
        ("the link expires in 2 hours", 7200),
        ("good for the next 48h", 172800),
        ("the pass lasts an hour and a half", 5400),
        ("I'm in Madrid for another five days", 432000),
        ("the spare key works for a quarter of an hour", 900),
        ("she's minding the kids for a fortnight", 1209600),
        ("十分钟内有效", 600),
        ("两小时后过期", 7200),
        ("链接一刻钟后就失效", 900),
        ("有效期三天", 259200),
        ("我接下来两个小时在上课", 7200),
        ("我要在上海待一个半星期", int(1.5 * 7 * 86400)),
    ],
)
def test_a_stated_period_sets_the_ttl(text: str, seconds: int) -> None:
    assert expiry_in_words(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    "text",
    [
        "I waited ten minutes for the bus",
        "the film was three hours long",
        "I feed the cat every 8 hours",
        "my niece is two weeks old",
        "we've lived here for six years",
        "bake it for 40 minutes",
        "the battery lasts 12 hours on a charge",
        "我跑了半小时",
        "我女儿两个月大",
        "每三天换一次水",
        "我以前在成都住过一年",
        "这个耳机能用八个小时",
        "2025年我要去日本",
        "我十分喜欢这本书",
        "I work as a baker",  # "a" + "s" is not "a second"
        "User works as nurse",
        "这条路很长，走路要半个小时。",  # 要 + a period: it takes, not a state
    ],
)
def test_a_period_in_passing_sets_nothing(text: str) -> None:
    assert expiry_in_words(text) is None


def test_the_development_file_the_rules_were_written_against() -> None:
    rows = [json.loads(line) for line in DEV.read_text("utf-8").splitlines() if line.strip()]
    ttl = [r for r in rows if r["ttl_seconds"] is not None]
    null = [r for r in rows if r["ttl_seconds"] is None]
    right = 0
    for r in ttl:
        got = expiry_in_words(r["text"])
        right += got is not None and 0.9 * r["ttl_seconds"] < got.total_seconds() < 1.1 * r["ttl_seconds"]
    false = sum(expiry_in_words(r["text"]) is not None for r in null)
    assert len(rows) == 120
    assert right / len(ttl) >= 0.9 and false / len(null) <= 0.05
