"""Issue 29 finding 6: four detector misses, each with a property test like the spelling tests of
the last round (tests/redteam/test_edge.py): a Japanese IDN e-mail mixing kanji and kana, Cyrillic
look-alike letters inside an address, a phone or card number split across lines, and an address
percent-encoded in a URL. Precision is kept: all-Cyrillic and all-Greek text, numbers on separate
lines of a list and ordinary URLs with percent signs are not flagged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remnant.privacy import Detector, PrivacyPolicy
from remnant.privacy.entities import ALL_ENTITIES


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(PrivacyPolicy(entities=ALL_ENTITIES, use_presidio=False))


def _covered(detector: Detector, text: str, value: str, etype: str) -> bool:
    start = text.index(value)
    return any(
        d.entity_type.value == etype and d.start <= start and d.end >= start + len(value)
        for d in detector.detect(text)
    )


KANJI = "山田太郎花子佐藤鈴木高橋例会社東京"
KANA = "たろうはなこやまだすずきさとうれいえメールアドレスカイシャ"
ascii_word = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@settings(max_examples=60, deadline=None)
@given(
    kanji=st.text(KANJI, min_size=1, max_size=4),
    kana=st.text(KANA, min_size=1, max_size=4),
    domain_kanji=st.text(KANJI, min_size=1, max_size=3),
    domain_kana=st.text(KANA, min_size=1, max_size=3),
    tld=st.sampled_from(["jp", "com", "日本", "コム"]),
    kana_first=st.booleans(),
)
def test_japanese_idn_addresses_mixing_kanji_and_kana(
    detector: Detector, kanji: str, kana: str, domain_kanji: str, domain_kana: str, tld: str, kana_first: bool
) -> None:
    local = kana + kanji if kana_first else kanji + kana
    value = f"{local}@{domain_kanji}{domain_kana}.{tld}"
    assert _covered(detector, f"連絡先: {value} まで", value, "EMAIL")


# Cyrillic letters that look like Latin ones, as an attacker swaps them into an ASCII address
SWAPS = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"}


@settings(max_examples=80, deadline=None)
@given(
    user=ascii_word,
    host=ascii_word,
    tld=st.sampled_from(["com", "org", "net", "io"]),
    swap=st.lists(st.booleans(), min_size=24, max_size=24),
)
def test_cyrillic_look_alikes_inside_an_address(
    detector: Detector, user: str, host: str, tld: str, swap: list[bool]
) -> None:
    plain = f"{user}.x@{host}.{tld}"
    value = "".join(SWAPS[c] if c in SWAPS and swap[i % len(swap)] else c for i, c in enumerate(plain))
    assert _covered(detector, f"write to {value} today", value, "EMAIL")


@settings(max_examples=80, deadline=None)
@given(
    last4=st.integers(0, 9999),
    mid=st.integers(200, 999),
    area=st.sampled_from(["415", "212", "646", "303"]),
    where=st.integers(0, 2),
    indent=st.sampled_from(["", " ", "  "]),
    plus=st.booleans(),
)
def test_phone_numbers_split_across_lines(
    detector: Detector, last4: int, mid: int, area: str, where: int, indent: str, plus: bool
) -> None:
    groups = [("+1 " if plus else "") + area, str(mid), f"{last4:04d}"]
    if len(set(groups[-1])) == 1:
        return  # 0000-style endings are placeholders people write, not numbers
    parts = [groups[0], " ", groups[1], " ", groups[2]]
    parts[1 + 2 * (where % 2)] = "\n" + indent
    value = "".join(parts)
    assert _covered(detector, f"call me on {value} tonight", value, "PHONE")


def test_a_card_split_across_lines(detector: Detector) -> None:
    value = "4111 1111\n1111 1111"
    assert _covered(detector, f"card {value} thanks", value, "CARD")


@settings(max_examples=60, deadline=None)
@given(
    user=ascii_word,
    host=ascii_word,
    encode_dot=st.booleans(),
    lower=st.booleans(),
    param=st.sampled_from(["email", "to", "u", "contact"]),
)
def test_percent_encoded_addresses_in_urls(
    detector: Detector, user: str, host: str, encode_dot: bool, lower: bool, param: str
) -> None:
    at = "%40"
    dot = ("%2e" if lower else "%2E") if encode_dot else "."
    value = f"{user}.x{at}{host}{dot}com"
    text = f"open https://shop.example.net/account?{param}={value}&ref=mail"
    assert _covered(detector, text, value, "EMAIL")


NOT_PII = [
    "почта: приходите в понедельник",  # all Cyrillic
    "Москва и Санкт-Петербург",
    "αβγ δέλτα ορος",  # all Greek
    "room 12\nfloor 3\ndesk 45",
    "2021\n2022\n2023",
    "totals 1200\n3400",
    "https://example.com/search?q=100%25+off&page=2",
    "50% off, then 20%",
    "Привет, Ana! See you at 10.30",
    "東京で会いましょう",
]


def test_the_new_readings_keep_precision(detector: Detector) -> None:
    flagged = {t: [(d.entity_type.value, d.value) for d in detector.detect(t)] for t in NOT_PII}
    assert not any(flagged.values()), {t: f for t, f in flagged.items() if f}
