"""Every script finds its memories: kana, hangul, full-width Latin/digits, mixed-script text.

The lexical index text of a memory and the terms of a query come from one normaliser
(``remnant.core.text``): unit tests for it first, then end to end through the retriever the CLI
and server build (``remnant.config.build_memory``) and the engine's plain ``LexicalRetriever``, on
SQLite and on PostgreSQL.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import pytest

from remnant import ManualClock
from remnant.config import build_memory
from remnant.core.text import (
    CJK_CLASS,
    HAN_CLASS,
    SCRIPT_RANGES,
    fts_match,
    has_cjk,
    has_han,
    index_text,
    is_cjk,
    is_han,
    is_hangul,
    is_kana,
    normalize,
    query_terms,
    script_of,
)
from remnant.engine import Memory
from remnant.engine.seams import LexicalRetriever
from remnant.retrieval import HybridRetriever
from remnant.retrieval.query import analyze, fts_or_query

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)

# -- the script table -------------------------------------------------------------------------


def test_script_table_is_sorted_and_disjoint() -> None:
    for a, b in pairwise(SCRIPT_RANGES):
        assert a.start <= a.end < b.start


@pytest.mark.parametrize(
    ("ch", "script"),
    [
        ("中", "han"),
        ("㐀", "han"),  # Extension A
        ("\U00020000", "han"),  # Extension B (supplementary plane, a surrogate pair in UTF-16)
        ("\U0002a700", "han"),  # Extension C
        ("\U00030000", "han"),  # Extension G
        ("\uf900", "han"),  # compatibility ideograph
        ("々", "han"),
        ("あ", "hiragana"),
        ("ア", "katakana"),
        ("ー", "katakana"),
        ("ｱ", "katakana"),  # half-width
        ("한", "hangul"),
        ("ᄀ", "hangul"),  # conjoining jamo
        ("ㄱ", "hangul"),  # compatibility jamo
        ("ﾡ", "hangul"),  # half-width jamo
        ("a", None),
        ("Ａ", None),  # full-width Latin is Latin (NFKC makes it ASCII)
        ("。", None),
        ("・", None),  # katakana middle dot separates words
        ("😀", None),
        ("", None),
    ],
)
def test_script_of(ch: str, script: str | None) -> None:
    assert script_of(ch) == script
    assert is_cjk(ch) == (script is not None)
    assert is_han(ch) == (script == "han")
    assert is_kana(ch) == (script in ("hiragana", "katakana"))
    assert is_hangul(ch) == (script == "hangul")


def test_regex_classes_agree_with_the_table() -> None:
    cjk, han = re.compile(f"[{CJK_CLASS}]"), re.compile(f"[{HAN_CLASS}]")
    points = [cp for r in SCRIPT_RANGES for cp in (r.start - 1, r.start, r.end, r.end + 1)]
    points += list(range(0x3000, 0x3100)) + list(range(0xFF00, 0x10000))
    for cp in points:
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        assert bool(cjk.match(ch)) == is_cjk(ch), hex(cp)
        assert bool(han.match(ch)) == is_han(ch), hex(cp)


def test_han_only_is_not_any_cjk() -> None:
    assert has_han("我喜欢茶") and has_han("東京タワー")
    assert not has_han("こんにちは") and not has_han("안녕하세요") and not has_han("ｶﾀｶﾅ")
    assert has_cjk("こんにちは") and has_cjk("안녕하세요") and has_cjk("ｶﾀｶﾅ") and not has_cjk("ＡＢＣ")


# -- the normaliser ---------------------------------------------------------------------------


def test_nfkc_full_width_and_half_width() -> None:
    assert normalize("ＡＢＣ ｔｅａ １２３") == "ABC tea 123"
    assert normalize("ｶﾞｯｺｳ ﾃｽﾄ") == "ガッコウ テスト"  # voiced marks compose
    assert normalize("ﾡ") == normalize("ㄱ") == "\u1100"  # half-width and compatibility jamo: one form
    assert normalize("cafe\u0301") == "café"  # a combining accent composes
    assert normalize("\uf900") == "豈"  # compatibility ideograph to the unified one
    assert query_terms("ＡＢＣ ｔｅａ") == ["abc", "tea"]
    assert query_terms("ｺｰﾋｰ") == query_terms("コーヒー") == ["コー", "ーヒ", "ヒー"]


def test_cjk_runs_become_bigrams_on_both_sides() -> None:
    assert index_text("我喜欢") == "我喜欢\n我喜 喜欢 欢"  # Chinese: as before
    assert index_text("こんにちは") == "こんにちは\nこん んに にち ちは は"
    assert index_text("커피를 마셔요") == "커피를 마셔요\n커피 피를 를 마셔 셔요 요"
    assert index_text("我用iPhone拍照") == "我用iPhone拍照\n我用 用 iPhone 拍照 照"  # glued word on its own
    assert query_terms("我用iPhone拍照") == ["我用", "iphone", "拍照"]
    assert fts_match("画") == '"画"*'  # a lone character matches as a bigram prefix
    assert fts_or_query("画") == '"画"*'


def test_edge_cases() -> None:
    for text in ("", "   ", "?!…。、「」", "😀🎉"):
        assert index_text(text) == normalize(text)
        assert query_terms(text) == []
        assert fts_match(text) is None
        assert fts_or_query(text) == ""
        assert analyze(text).fts == ""
    assert query_terms("😀 tea") == ["tea"]
    # surrogate-plane Han (Extension B) is bigrammed like any Han
    assert query_terms("\U00020000\U00020001") == ["\U00020000\U00020001"]
    assert index_text("\U00020000\U00020001") == "\U00020000\U00020001\n\U00020000\U00020001 \U00020001"


ENGLISH = [
    "What did Melanie paint last year?",
    "I don't think she's been to Paris since May 2023 -- really!",
    "snake_case_words and CamelCase, e-mail: ana@example.com, tel 555-1234",
]


def test_english_is_unchanged() -> None:
    for text in ENGLISH:
        assert index_text(text) == text
    assert fts_match(ENGLISH[0]) == '"melanie" OR "paint" OR "last" OR "year"'
    assert query_terms(ENGLISH[2])[:3] == ["snake", "case", "words"]
    assert analyze(ENGLISH[2]).terms[:2] == ["snake_case_words", "camelcase"]  # ranking keeps it whole


SAMPLES = [
    "我上周末在公园里画了一幅日出的画。",
    "きょうはともだちとこうえんにいきました",
    "コーヒーが大好きです",
    "ｺｰﾋｰを飲みました",
    "東京タワーに行きました。人々が多かった",
    "저는 서울에서 커피를 마셔요",
    "ＡＢＣ ｔｅａ １２３ ｃａｆｅ\u0301",
    "我用iPhone拍照, Seoul타워 and 東京Tower",
    "Ünïcödé naïve café",
    "\U00020000\U00020001\U00020002 and 𠮷野家",
]


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    """An FTS5 table with the stores' tokenizer, holding the samples' index text."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2')")
    db.executemany(
        "INSERT INTO t (rowid, text) VALUES (?, ?)", [(i, index_text(s)) for i, s in enumerate(SAMPLES)]
    )
    yield db
    db.close()


@pytest.mark.parametrize("i", range(len(SAMPLES)))
def test_index_text_and_query_terms_agree_on_every_script(fts: sqlite3.Connection, i: int) -> None:
    """Every term a query of a memory's own text yields is a token of its index text, and FTS5
    finds the memory with it (exact phrases of any length too)."""
    text = SAMPLES[i]
    folded = normalize(index_text(text)).lower()
    indexed = set(re.findall(r"[^\W_]+", folded))
    for term in query_terms(text, drop_stopwords=False):
        assert term in indexed or (len(term) == 1 and is_cjk(term)), term
        match = fts_match(term)
        assert match is not None
        got = {r[0] for r in fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,))}
        assert i in got, term
    for query in (text, unicodedata.normalize("NFKD", text)):
        for match in (fts_match(query), fts_or_query(query)):
            assert match
            top = fts.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 1", (match,))
            assert top.fetchone()[0] == i


def test_one_character_query_finds_it_anywhere_in_a_run(fts: sqlite3.Connection) -> None:
    for ch, i in (("公", 0), ("园", 0), ("画", 0), ("ヒ", 2), ("ー", 2), ("커", 5), ("요", 5)):
        match = fts_match(ch)
        assert match == f'"{ch}"*'
        assert i in {r[0] for r in fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,))}, ch


# -- end to end: the product's retriever and the plain lexical path, SQLite and PostgreSQL ----------

MEMORIES = [
    "きょうはともだちとこうえんにいきました",  # 0 hiragana
    "コーヒーが大好きです",  # 1 katakana
    "ｶﾚｰﾗｲｽを作りました",  # 2 half-width katakana
    "東京タワーに行きました",  # 3 Japanese, kanji + katakana + hiragana
    "저는 서울에서 커피를 마셔요",  # 4 hangul
    "주말에 등산을 갔어요",  # 5 hangul
    "I drink ｇｒｅｅｎ ｔｅａ every morning",  # 6 full-width Latin
    "My locker number is ４７１１",  # 7 full-width digits
    "Order ABC-9 shipped today",  # 8 ASCII, found by a full-width query
    "我用iPhone拍照",  # 9 Chinese with a glued Latin word
    "明天去Seoul타워看夜景",  # 10 Chinese + Latin + hangul
    "我喜欢喝绿茶",  # 11 Chinese (must not regress)
    "The spare key is under the blue flowerpot",  # 12 English
]

QUERIES = [
    ("こうえん", 0),
    ("ともだち", 0),
    ("コーヒー", 1),
    ("ｺｰﾋｰ", 1),  # half-width query, full-width memory
    ("カレーライス", 2),  # full-width query, half-width memory
    ("東京タワー", 3),  # exact Japanese phrase
    ("タワーに行きました", 3),
    ("서울에서 커피", 4),  # exact Korean phrase
    ("커피", 4),
    ("등산", 5),
    ("green tea", 6),
    ("ｔｅａ", 6),
    ("4711", 7),
    ("locker ４７１１", 7),
    ("ＡＢＣ", 8),
    ("iPhone", 9),
    ("拍照", 9),
    ("Seoul", 10),
    ("타워", 10),
    ("夜景", 10),
    ("绿茶", 11),
    ("茶", 11),  # one character, at the end of its run
    ("spare key", 12),
]


def _remember_all(mem: Memory) -> list[str]:
    return [mem.remember(text, user_id="ana").id for text in MEMORIES]


def _check(mem: Memory, ids: list[str]) -> None:
    misses = []
    for query, want in QUERIES:
        got = [h.memory.id for h in mem.recall(query, user_id="ana", limit=3, touch=False).hits]
        if not got or got[0] != ids[want]:
            misses.append((query, MEMORIES[want], [ids.index(g) for g in got]))
    assert not misses, misses


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], str]:
    """A database URL/path for a product-built engine."""
    if request.param == "sqlite":
        return lambda: str(tmp_path / "r.db")
    request.applymarker(pytest.mark.pg)
    from remnant.privacy.keys import KEY_ENV, generate_key

    mp = request.getfixturevalue("monkeypatch")
    mp.setenv(KEY_ENV, generate_key())  # a server database keeps its vault key in the environment
    url: str = request.getfixturevalue("pg_url")
    return lambda: url


@pytest.mark.slow
@pytest.mark.parametrize("embedder", ["static", "none"])
def test_product_retriever_finds_every_script(
    target: Callable[[], str], embedder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """build_memory as the CLI and server call it: HybridRetriever (static vectors, or lexical only)."""
    monkeypatch.setenv("REMNANT_EMBEDDER", embedder)
    mem = build_memory(target(), clock=ManualClock(T0))
    try:
        assert isinstance(mem.retriever, HybridRetriever)
        assert (mem.retriever.embedder is None) == (embedder == "none")
        _check(mem, _remember_all(mem))
    finally:
        mem.close()


def test_engine_lexical_path_finds_every_script(target: Callable[[], str]) -> None:
    mem = build_memory(target(), clock=ManualClock(T0), retriever=LexicalRetriever())
    try:
        _check(mem, _remember_all(mem))
    finally:
        mem.close()
