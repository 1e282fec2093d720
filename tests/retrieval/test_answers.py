"""The answer-type reading (what kind of answer a question asks for) and the learned ranker's two
features built on it, on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever, read_answer
from remnant.retrieval.answers import MAX_QUESTION_CHARS
from remnant.retrieval.explain import explain_recall
from remnant.retrieval.ranker import ANSWER_FEATURES, FEATURES, VECTOR_FEATURES, LearnedRanker

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
NAMES = frozenset({"alice", "bob"})


@pytest.mark.parametrize(
    ("question", "kinds", "head"),
    [
        ("Who supports Alice when she is sad?", {"person", "name"}, ""),
        ("Where has Alice camped?", {"place", "org"}, ""),
        ("When did Bob run a charity race?", {"date"}, ""),
        ("How many children does Alice have?", {"quantity"}, "children"),
        ("What activities has Alice done with her family?", set(), "activities"),
        ("Which books has Bob read?", {"name", "product"}, "books"),
        ("What states has Alice visited?", {"place"}, "states"),
        ("What kind of art does Alice make?", set(), "art"),
        ("What are Alice's pets' names?", {"person", "name"}, "pets names"),
        ("What is Alice's relationship status?", set(), "relationship status"),
        ("What did Alice paint?", set(), ""),  # no head noun: the verb follows the question word
        ("What Bob likes", set(), ""),  # a speaker's name is never the head
        ("Tell me about the garden", set(), ""),
        ("小明住在哪里？", {"place", "org"}, ""),
        ("他有几个孩子？", {"quantity"}, ""),
    ],
)
def test_the_question_says_what_kind_of_answer_it_asks_for(question, kinds, head) -> None:
    a = read_answer(question, NAMES)
    assert set(a.kinds) == kinds and a.head == head


def test_the_reading_is_bounded_and_takes_any_text() -> None:
    assert read_answer("") == read_answer("   ") == read_answer("???")
    long = "what " * 100_000 + "books"
    assert read_answer(long).head == ""  # read from the first MAX_QUESTION_CHARS only
    assert read_answer("x" * (MAX_QUESTION_CHARS - 12) + " which books").head == "books"


def test_the_features_are_listed_and_need_vectors_for_the_head_noun() -> None:
    assert set(ANSWER_FEATURES) <= set(FEATURES)
    assert "answer_head" in VECTOR_FEATURES and "answer_entity" not in VECTOR_FEATURES


TURNS = [
    ("Alice", "We drove through Ohio and Texas on the road trip"),
    ("Alice", "I visited my aunt, it was a long drive"),
    ("Bob", "I met Marcus at the fair, he sells pottery"),
    ("Bob", "Alice and I went to the fair together"),
    ("Alice", "I read books every evening, mostly novels"),
]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def store_target(request, tmp_path):
    if request.param == "sqlite":
        return tmp_path / "a.db"
    from remnant.store.postgres import PostgresStore

    return PostgresStore(request.getfixturevalue("pg_url"))


def _memory(target, retriever: HybridRetriever) -> Memory:
    clock = ManualClock(T0)
    mem = (
        Memory(target, clock=clock, retriever=retriever)
        if not hasattr(target, "embeddings")
        else Memory(store=target, clock=clock, retriever=retriever)
    )
    mem.remember_many(
        [
            {"content": t, "user_id": "u", "kind": "episode", "session_id": "s", "metadata": {"speaker": w}}
            for w, t in TURNS
        ],
        supersede=False,
    )
    return mem


def _by_text(mem: Memory, features: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return {mem.get(i).content: x for i, x in features.items()}  # type: ignore[union-attr]


def test_the_answer_features_read_the_entity_index_and_the_head_noun(store_target) -> None:
    retriever = HybridRetriever(get_embedder("static"), min_similarity=-1.0, ranker=False)
    mem = _memory(store_target, retriever)
    try:
        flt = mem.recall_filter("u")
        trace = retriever.explain(mem.ledger, "What states has Alice visited on a trip?", flt, 5)
        x = _by_text(mem, trace.features)
        assert x[TURNS[0][1]]["answer_entity"] == 1.0  # Ohio, Texas: places
        assert all(x[t]["answer_entity"] == 0.0 for _, t in TURNS[1:] if t in x)
        heads = [v["answer_head"] for v in x.values()]
        assert min(heads) == 0.0 and max(heads) == 1.0  # min-max over the candidates

        # "who": a name the question does not name itself; the speakers' names never count
        trace = retriever.explain(mem.ledger, "Who did Bob meet at the fair?", flt, 5)
        x = _by_text(mem, trace.features)
        assert x[TURNS[2][1]]["answer_entity"] == 1.0  # Marcus
        assert x[TURNS[3][1]]["answer_entity"] == 0.0  # names only Alice, a speaker
        # no head noun: the feature is the same (0) for every candidate
        assert {v["answer_head"] for v in x.values()} == {0.0}
    finally:
        mem.close()


def test_a_model_using_them_ranks_by_them_and_the_explanation_lists_them(tmp_path) -> None:
    model = LearnedRanker(
        features=("lexical_score", "answer_entity", "answer_head"),
        weights=(0.2, 3.0, 1.0),
        mean=(0.0, 0.0, 0.0),
        scale=(1.0, 1.0, 1.0),
    )
    retriever = HybridRetriever(get_embedder("static"), min_similarity=-1.0, ranker=model)
    mem = _memory(tmp_path / "m.db", retriever)
    try:
        q = "What states has Alice visited on a trip?"
        hits = mem.recall(q, user_id="u", limit=3, touch=False).hits
        assert hits[0].memory.content == TURNS[0][1]
        ex = explain_recall(mem, q, user_id="u", limit=3)
        first = ex.hits[0]
        assert set(first.ranker_contributions) == {"lexical_score", "answer_entity", "answer_head"}
        assert first.ranker_contributions["answer_entity"] == pytest.approx(3.0)
        assert ex.to_dict()["hits"][0]["ranker"]["contributions"]["answer_entity"] == pytest.approx(3.0)
    finally:
        mem.close()


def test_without_vectors_a_model_using_the_head_noun_falls_back(tmp_path) -> None:
    model = LearnedRanker(features=("answer_head",), weights=(1.0,), mean=(0.0,), scale=(1.0,))
    mem = _memory(tmp_path / "l.db", HybridRetriever(None, ranker=model))
    try:
        ex = explain_recall(mem, "What states has Alice visited?", user_id="u", limit=3)
        assert ex.hits and all(h.ranker_score is None for h in ex.hits)
    finally:
        mem.close()
