"""The entity index: the reader, the second round it opens, and the product's rows on both backends."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.sqlite_trace import ours

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.privacy import generate_key
from remnant.retrieval.entities import (
    MAX_ENTITIES,
    ExpansionLimits,
    LightEntityReader,
    expansion_keys,
    expansion_scores,
)
from remnant.retrieval.rescoring import RecallTuning
from remnant.retrieval.retriever import HybridRetriever
from remnant.store.base import MemoryFilter
from remnant.store.postgres import PostgresStore

READER = LightEntityReader()


def kinds(text: str) -> list[tuple[str, str]]:
    return [(e.kind, e.key) for e in READER.read(text)]


# -- the reader ------------------------------------------------------------------------------------
def test_names_places_organisations_and_products() -> None:
    got = kinds("Thanks Caroline! I went to the LGBTQ support group at Stanford University in New York.")
    assert got == [
        ("name", "caroline"),
        ("name", "lgbtq"),
        ("org", "stanford university"),
        ("place", "new york"),
    ]
    assert kinds("Mel, I bought an iPhone and an RTX4090.") == [
        ("name", "mel"),
        ("product", "iphone"),
        ("product", "rtx4090"),
    ]


def test_a_possessive_is_its_name_and_a_question_word_is_no_name() -> None:
    assert kinds("What do Melanie's kids like?") == [("name", "melanie")]
    assert kinds("When did Caroline go to Paris?") == [("name", "caroline"), ("place", "paris")]


def test_a_sentences_first_word_is_a_name_only_when_it_can_be_one() -> None:
    # common words and ordinary shapes at a sentence's start are capitalised anyway
    assert kinds("Painting is fun. Yeah, I'm gonna try. You're right.") == []
    assert kinds("Hey Mel! Melanie said so.") == [("name", "mel"), ("name", "melanie")]
    # the text names it mid-sentence too: then the first word is the same name
    assert kinds("Skating calms me. I love Skating.") == [("name", "skating")]


def test_dates_and_quantities() -> None:
    got = kinds("On 7 May 2023 I ran 5 km, in 2022 it was two miles, and it cost $800.")
    assert ("date", "2023-05-07") in got and ("date", "2022") in got
    assert ("quantity", "5 km") in got and ("quantity", "2 miles") in got and ("quantity", "$800") in got
    assert ("date", "2023-05") in kinds("We met in May 2023.")
    assert ("date", "2023-05-07") in kinds("See you May 7, 2023 then")


def test_placeholders_are_not_entities() -> None:
    assert kinds("[PERSON_1] called me at [PHONE_1] about [EMAIL_2].") == []


def test_the_engines_own_subject_word_is_no_name() -> None:
    # the facts the engine writes start "User ..." / "User's ...": read as a name, every fact of a
    # user shared the key "user" and the entity round lifted all of them for any question
    assert kinds("User's name: Ana") == [("name", "ana")]
    assert kinds("User lives in Porto") == [("place", "porto")]


def test_chinese_without_a_model() -> None:
    assert kinds("李华送给小明什么礼物？") == [("person", "李华"), ("person", "小明")]
    got = kinds("王小明喜欢在北京市海淀区的清华大学读书，他今年20岁。")
    assert got == [
        ("person", "王小明"),
        ("place", "北京"),
        ("place", "海淀区"),
        ("org", "清华大学"),
        ("quantity", "20岁"),
    ]
    assert kinds("我2023年5月7日去了上海。") == [("date", "2023-05-07"), ("place", "上海")]


def test_at_most_max_entities_per_text() -> None:
    text = " and ".join(f"I met Zed{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(200))
    assert len(READER.read(text)) == MAX_ENTITIES


@pytest.mark.parametrize(
    "text",
    [
        "Hey Melanie, New York was great on 7 May 2023, 5 km. " * 2000,
        "王" * 100_000,
        "我在北京市海淀区的清华大学" * 8000,
        "A" * 100_000,
        "1 " * 50_000,
        "Aa " * 33_000,
        "9" * 100_000,
        "一" * 100_000,
        "$" + "9" * 99_999,
    ],
    ids=[
        "english",
        "one-han",
        "chinese",
        "one-letter",
        "numbers",
        "capitals",
        "digits",
        "han-digits",
        "amount",
    ],
)
def test_reading_is_bounded_at_100k_characters(text: str) -> None:
    # linear in the text; the budget is generous (about 1 s measured on a busy 2-core machine)
    start = time.perf_counter()
    got = READER.read(text[:100_000])
    assert time.perf_counter() - start < 10.0
    assert len(got) <= MAX_ENTITIES and all(len(e.key) <= 64 for e in got)


# -- the second round ------------------------------------------------------------------------------
def test_expansion_weighs_the_question_then_its_hits_and_skips_speakers() -> None:
    limits = ExpansionLimits(keys=3)
    keys = expansion_keys(
        [("name", "melanie"), ("date", "2023")],
        [[("name", "oliver"), ("name", "mia")], [("name", "oliver")], [("quantity", "2 kids")]],
        limits,
        skip=frozenset({"melanie"}),
    )
    # dates and quantities open nothing; a key two hits share outweighs one hit's
    assert keys == {"oliver": pytest.approx(1 / 2 + 1 / 3), "mia": pytest.approx(1 / 2)}


def test_a_common_key_adds_nothing_and_a_rare_one_the_most() -> None:
    limits = ExpansionLimits(per_key=3, candidates=10)
    scores = expansion_scores(
        {"oliver": 1.0, "mia": 1.0, "john": 1.0},
        {"oliver": ["a", "b"], "mia": ["b"], "john": ["a", "b", "c", "d"]},
        limits,
    )
    assert [i for i, _ in scores] == ["b", "a"]  # john names more than per_key: left out


# -- the product, on both backends -----------------------------------------------------------------
OpenMemory = Callable[..., Memory]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def open_mem(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OpenMemory]:
    opened: list[Memory] = []
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)

    def make(**kw: object) -> Memory:
        kw.setdefault("clock", ManualClock(T0))
        if request.param == "sqlite":
            mem = Memory(tmp_path / "m.db", **kw)  # type: ignore[arg-type]
        else:
            mem = Memory(store=PostgresStore(request.getfixturevalue("pg_url")), **kw)  # type: ignore[arg-type]
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()


def test_the_product_indexes_what_each_memory_names(open_mem: OpenMemory) -> None:
    mem = open_mem(embedder="static")
    a = mem.remember("My kids Oliver and Mia are growing up fast.", user_id="mel")
    b = mem.remember("I moved to Lisbon last year.", user_id="ana")
    got = mem.store.entities_of([a.id, b.id], tenant=mem.tenant)
    assert got == {a.id: [("name", "mia"), ("name", "oliver")], b.id: [("place", "lisbon")]}
    found = mem.store.entity_memories(["oliver", "lisbon"], tenant=mem.tenant, user_id="mel", limit=5)
    assert found == {"oliver": [a.id], "lisbon": []}  # another user's memory is not in this scope


def test_the_entity_round_reaches_turns_that_share_no_word_with_the_question(open_mem: OpenMemory) -> None:
    retriever = HybridRetriever(None, tuning=RecallTuning(entity_weight=0.5))
    mem = open_mem(retriever=retriever)
    mem.remember("My kids Oliver and Mia are growing up fast.", user_id="mel")
    target = mem.remember("Oliver adores dinosaurs, Mia adores painting.", user_id="mel")
    mem.remember("I went hiking in Colorado.", user_id="mel")
    hits = mem.recall("what do Melanie's kids like?", user_id="mel", limit=3, touch=False)
    assert target.id in [h.memory.id for h in hits]
    retriever.tuning = RecallTuning()  # off: the lexical round alone cannot reach it
    hits = mem.recall("what do Melanie's kids like?", user_id="mel", limit=3, touch=False)
    assert target.id not in [h.memory.id for h in hits]


def test_entity_rows_go_with_a_purge_and_an_erasure(open_mem: OpenMemory) -> None:
    mem = open_mem(embedder="static")
    a = mem.remember("Oliver plays football with Mia.", user_id="mel")
    b = mem.remember("Oliver started school in Lisbon.", user_id="mel")
    c = mem.remember("Oliver visited Porto.", user_id="ana")
    mem.purge(a.id)
    assert mem.store.entities_of([a.id], tenant=mem.tenant) == {}
    assert mem.store.entity_memories(["oliver"], tenant=mem.tenant, user_id="mel", limit=5) == {
        "oliver": [b.id]
    }
    report = mem.erase_user("mel")
    assert report.verified, report.checks
    assert report.checks["entities"] == 0
    assert mem.store.entities_of([b.id], tenant=mem.tenant) == {}
    assert mem.store.entity_memories(["oliver"], tenant=mem.tenant, user_id=None, limit=5) == {
        "oliver": [c.id]
    }


def test_entities_are_read_from_the_redacted_text(open_mem: OpenMemory) -> None:
    mem = open_mem(embedder="static")
    r = mem.remember("Call Oliver at +44 20 7946 0958 or oliver.smith@example.com", user_id="mel")
    assert "example.com" not in mem.store.get(r.id, tenant=mem.tenant).content  # type: ignore[union-attr]
    got = mem.store.entities_of([r.id], tenant=mem.tenant)[r.id]
    assert ("name", "oliver") in got
    assert not any("example" in key or "7946" in key for _, key in got)


def test_a_rewritten_memory_is_read_again(open_mem: OpenMemory) -> None:
    mem = open_mem(embedder="static")
    r = mem.remember("I met Oliver in Lisbon.", user_id="mel")
    mem.update(r.id, content="I met Mia in Porto.")
    assert mem.store.entities_of([r.id], tenant=mem.tenant) == {r.id: [("name", "mia"), ("place", "porto")]}


def test_index_entities_off_writes_none(open_mem: OpenMemory) -> None:
    mem = open_mem(retriever=HybridRetriever(None, index_entities=False))
    r = mem.remember("I met Oliver in Lisbon.", user_id="mel")
    assert mem.store.entities_of([r.id], tenant=mem.tenant) == {}
    assert mem.store.count(MemoryFilter(tenant=mem.tenant, user_id="mel")) == 1


def test_explain_shows_what_the_entity_round_added(tmp_path: Path) -> None:
    from remnant.retrieval.explain import explain_recall

    mem = Memory(tmp_path / "x.db", retriever=HybridRetriever(None, tuning=RecallTuning(entity_weight=0.5)))
    try:
        mem.remember("My kids Oliver and Mia are growing up fast.", user_id="mel")
        target = mem.remember("Oliver adores dinosaurs, Mia adores painting.", user_id="mel")
        ex = explain_recall(mem, "what do Melanie's kids like?", user_id="mel", limit=3)
        hit = next(h for h in ex.hits if h.hit.memory.id == target.id)
        assert hit.lexical_rank is None and hit.entity_score is not None and hit.entity_score > 0
        assert hit.fused == pytest.approx(hit.entity_score)  # found by the entity round alone
        assert hit.hit.score == pytest.approx(hit.fused * hit.signal_factor)  # type: ignore[operator]
        assert ex.to_dict()["hits"][[h.hit.memory.id for h in ex.hits].index(target.id)]["entity_score"] > 0
    finally:
        mem.close()


def test_the_entity_round_is_three_statements_whatever_the_keys(tmp_path: Path) -> None:
    seen: list[str] = []
    off = HybridRetriever(None, tuning=RecallTuning())
    on = HybridRetriever(None, tuning=RecallTuning(entity_weight=0.5))
    mem = Memory(tmp_path / "s.db", retriever=off)
    try:
        for i in range(30):
            mem.remember(f"Oliver met Mia{i} and Zed{i} in Lisbon with Ann{i}.", user_id="mel")
        counts = []
        for retriever in (off, on):
            mem.ledger.retriever = retriever
            mem.recall("where did Oliver meet Mia3?", user_id="mel", limit=5, touch=False)  # warm
            seen.clear()
            mem.store.set_trace_callback(lambda s: seen.append(s) if ours(s) else None)  # type: ignore[attr-defined]
            mem.recall("where did Oliver meet Mia3?", user_id="mel", limit=5, touch=False)
            mem.store.set_trace_callback(None)  # type: ignore[attr-defined]
            counts.append(len(seen))
        # the seeds' entities, one lookup of every key (16 at most), the candidates' filter
        assert counts[1] - counts[0] == 3, seen
        assert sum("memory_entities" in s for s in seen) == 2
    finally:
        mem.close()


def test_the_entity_round_in_chinese(tmp_path: Path) -> None:
    from remnant.retrieval.explain import explain_recall

    mem = Memory(tmp_path / "zh.db", retriever=HybridRetriever(None, tuning=RecallTuning(entity_weight=0.5)))
    try:
        mem.remember("李华的女儿叫小美。", user_id="u")
        target = mem.remember("小美最近迷上了画画。", user_id="u")
        mem.remember("我周末去爬山了。", user_id="u")
        assert mem.store.entities_of([target.id], tenant=mem.tenant) == {target.id: [("person", "小美")]}
        ex = explain_recall(mem, "李华的女儿有什么爱好？", user_id="u", limit=3)
        hit = next(h for h in ex.hits if h.hit.memory.id == target.id)
        assert hit.entity_score is not None and hit.entity_score > 0
    finally:
        mem.close()
