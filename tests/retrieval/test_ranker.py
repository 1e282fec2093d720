"""The learned ranker: training, the model file, its use in recall, the fallback and the explanation,
on a real SQLite file."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.explain import explain_recall
from remnant.retrieval.ranker import FEATURES, MODEL_FILE, LearnedRanker, load_ranker, train_ranker
from remnant.retrieval.retriever import shipped_ranker

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _groups() -> list[tuple[list[dict[str, float]], list[bool]]]:
    """Questions whose evidence is the turn of the speaker they name, although another turn has
    the better BM25."""
    groups = []
    for k in range(20):
        xs = [
            {"lexical_score": 1.0, "speaker": 0.0, "length": 0.1 * (k % 3)},
            {"lexical_score": 0.6, "speaker": 1.0, "length": 0.2},
            {"lexical_score": 0.3, "speaker": 0.0, "length": 0.5},
        ]
        groups.append((xs, [False, True, False]))
    return groups


def test_training_learns_the_feature_that_orders_the_evidence_first_and_is_deterministic() -> None:
    model = train_ranker(_groups())
    w = dict(zip(model.features, model.weights, strict=True))
    assert w["speaker"] > 0 and w["speaker"] > abs(w["lexical_score"])
    for xs, labels in _groups():
        scores = [model.score(x) for x in xs]
        assert scores.index(max(scores)) == labels.index(True)
        assert all(0.0 < s < 1.0 for s in scores)
    assert train_ranker(_groups()).to_dict() == model.to_dict()
    # the contributions add up to the linear score behind the sigmoid
    x = _groups()[0][0][1]
    z = model.bias + sum(model.contributions(x).values())
    assert model.score(x) == pytest.approx(1 / (1 + pytest.importorskip("math").exp(-z)))


def test_training_needs_questions_with_something_to_order() -> None:
    with pytest.raises(RetrievalError):
        train_ranker([])
    with pytest.raises(RetrievalError):
        train_ranker([([{"speaker": 1.0}], [True])])


def test_the_model_file_round_trips_and_bad_files_are_refused(tmp_path) -> None:
    model = train_ranker(_groups(), info={"data": "toy"})
    path = tmp_path / "ranker.json"
    model.save(path)
    again = load_ranker(path)
    assert again is not None and again.to_dict() == model.to_dict() and again.info == {"data": "toy"}
    assert load_ranker(tmp_path / "missing.json") is None
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**model.to_dict(), "format": "other/9"}), encoding="utf-8")
    with pytest.raises(RetrievalError, match="format"):
        load_ranker(bad)
    bad.write_text(json.dumps({**model.to_dict(), "features": ["no_such_feature"] * len(model.features)}))
    with pytest.raises(RetrievalError, match="unknown features"):
        load_ranker(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(RetrievalError, match="cannot read"):
        load_ranker(bad)


def test_the_shipped_model_loads_and_uses_known_features() -> None:
    model = shipped_ranker()
    assert MODEL_FILE.is_file() and model is not None
    assert set(model.features) <= set(FEATURES) and any(model.weights)


def _conversation(path: object, retriever: HybridRetriever) -> Memory:
    mem = Memory(path, clock=ManualClock(T0), retriever=retriever)  # type: ignore[arg-type]
    turns = [
        ("Bob", "Alice told me the garden party was lovely, the garden looked great and the party too"),
        ("Alice", "I planted tomatoes in the garden"),
        ("Bob", "Nice weather today"),
    ]
    mem.remember_many(
        [
            {
                "content": text,
                "user_id": "u",
                "kind": "episode",
                "session_id": "s1",
                "metadata": {"speaker": who},
            }
            for who, text in turns
        ],
        supersede=False,
    )
    return mem


def _speaker_model() -> LearnedRanker:
    names = ("lexical_score", "speaker")
    return LearnedRanker(features=names, weights=(0.5, 3.0), mean=(0.0, 0.0), scale=(1.0, 1.0), bias=-1.0)


def test_recall_ranks_by_the_model_and_explains_each_feature(tmp_path) -> None:
    fixed = _conversation(tmp_path / "fixed.db", HybridRetriever(None, ranker=False, speaker_boost=0.0))
    learned = _conversation(tmp_path / "learned.db", HybridRetriever(None, ranker=_speaker_model()))
    try:
        q = "What did Alice say about the garden party?"
        assert "party was lovely" in fixed.recall(q, user_id="u", limit=2, touch=False).hits[0].memory.content
        hits = learned.recall(q, user_id="u", limit=2, touch=False).hits
        assert hits[0].memory.content == "I planted tomatoes in the garden"  # Alice's own turn
        ex = explain_recall(learned, q, user_id="u", limit=2)
        first = ex.hits[0]
        assert first.ranker_score is not None and first.ranker_bias == -1.0
        assert set(first.ranker_contributions) == {"lexical_score", "speaker"}
        assert first.ranker_contributions["speaker"] == pytest.approx(3.0)
        assert first.hit.score == pytest.approx(first.ranker_score * (first.signal_factor or 1.0))
        d = ex.to_dict()["hits"][0]["ranker"]
        assert d["contributions"]["speaker"] == pytest.approx(3.0) and d["score"] == pytest.approx(
            first.ranker_score, abs=1e-6
        )
        assert explain_recall(fixed, q, user_id="u", limit=2).to_dict()["hits"][0]["ranker"] is None
    finally:
        fixed.close()
        learned.close()


def test_a_model_needing_cosines_falls_back_to_the_fixed_weights_without_vectors(tmp_path) -> None:
    needs_vectors = LearnedRanker(
        features=("vector_score", "speaker"), weights=(1.0, 3.0), mean=(0.0, 0.0), scale=(1.0, 1.0)
    )
    fixed = _conversation(tmp_path / "fixed.db", HybridRetriever(None, ranker=False))
    other = _conversation(tmp_path / "other.db", HybridRetriever(None, ranker=needs_vectors))
    try:
        q = "What did Alice say about the garden party?"
        a = [
            (h.memory.content, round(h.score, 9))
            for h in fixed.recall(q, user_id="u", limit=3, touch=False).hits
        ]
        b = [
            (h.memory.content, round(h.score, 9))
            for h in other.recall(q, user_id="u", limit=3, touch=False).hits
        ]
        assert a == b
        assert explain_recall(other, q, user_id="u", limit=3).hits[0].ranker_score is None
    finally:
        fixed.close()
        other.close()


def test_features_with_vectors_hold_both_halves_of_the_pair_vector(tmp_path) -> None:
    retriever = HybridRetriever(get_embedder("static"), min_similarity=-1.0, ranker=False)
    mem = _conversation(tmp_path / "v.db", retriever)
    try:
        flt = mem.recall_filter("u")
        trace = retriever.explain(mem.ledger, "tomatoes in the garden", flt, 3)
        assert trace.ranker is None and trace.features
        for x in trace.features.values():
            assert set(x) == set(FEATURES)
            assert -1.0 <= x["vector_own"] <= 1.0 and -1.0 <= x["vector_context"] <= 1.0
        best = max(trace.features, key=lambda i: trace.features[i]["vector_own"])
        assert "tomatoes" in mem.get(best).content  # type: ignore[union-attr]
    finally:
        mem.close()


def test_a_model_trained_on_another_embedder_falls_back(tmp_path) -> None:
    other = LearnedRanker(
        features=("speaker",), weights=(3.0,), mean=(0.0,), scale=(1.0,), info={"embedder": "another-model"}
    )
    mem = _conversation(
        tmp_path / "o.db", HybridRetriever(get_embedder("static"), min_similarity=-1.0, ranker=other)
    )
    try:
        ex = explain_recall(mem, "What did Alice say about the garden party?", user_id="u", limit=2)
        assert all(h.ranker_score is None for h in ex.hits)
    finally:
        mem.close()


def test_the_product_retriever_ranks_with_the_shipped_model(tmp_path) -> None:
    """e5-small, the product's embedder, is the one the shipped model was trained with: its
    recall is ranked by the model, and the explanation says so."""
    retriever = HybridRetriever(get_embedder("e5-small"))
    assert retriever.ranker is shipped_ranker()
    mem = _conversation(tmp_path / "p.db", retriever)
    try:
        ex = explain_recall(mem, "What did Alice say about the garden party?", user_id="u", limit=3)
        assert ex.hits and all(h.ranker_score is not None for h in ex.hits)
        assert all(h.ranker_contributions for h in ex.hits)
        assert HybridRetriever(get_embedder("e5-small"), ranker=False).ranker is None
    finally:
        mem.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store_target(request, tmp_path):
    if request.param == "sqlite":
        return tmp_path / "b.db"
    from remnant.store.postgres import PostgresStore

    return PostgresStore(request.getfixturevalue("pg_url"))


def test_the_ranker_reads_the_vector_halves_on_both_backends(store_target) -> None:
    model = LearnedRanker(
        features=("vector_own", "vector_context", "speaker"),
        weights=(2.0, 1.0, 0.5),
        mean=(0.0, 0.0, 0.0),
        scale=(1.0, 1.0, 1.0),
    )
    retriever = HybridRetriever(get_embedder("static"), min_similarity=-1.0, ranker=model)
    clock = ManualClock(T0)
    mem = (
        Memory(store_target, clock=clock, retriever=retriever)
        if not hasattr(store_target, "embeddings")
        else Memory(store=store_target, clock=clock, retriever=retriever)
    )
    try:
        turns = [("Alice", "I planted tomatoes in the garden"), ("Bob", "Nice weather today")]
        mem.remember_many(
            [
                {
                    "content": t,
                    "user_id": "u",
                    "kind": "episode",
                    "session_id": "s",
                    "metadata": {"speaker": w},
                }
                for w, t in turns
            ],
            supersede=False,
        )
        ex = explain_recall(mem, "tomatoes garden", user_id="u", limit=2)
        assert ex.hits[0].hit.memory.content == "I planted tomatoes in the garden"
        for h in ex.hits:
            assert h.ranker_score is not None and set(h.ranker_contributions) == {
                "vector_own",
                "vector_context",
                "speaker",
            }
        plain = mem.recall("tomatoes garden", user_id="u", limit=2, touch=False)
        assert [h.memory.id for h in plain.hits] == [h.hit.memory.id for h in ex.hits]
    finally:
        mem.close()
