"""The learned ranker's boosted trees and its evidence-cluster features (session, entity round,
seeded round, own terms), on a real SQLite file."""

from __future__ import annotations

import json
import math
import random
from datetime import UTC, datetime

import pytest

from remnant.core.clock import ManualClock
from remnant.core.model import Kind, MemoryRecord
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.explain import explain_recall
from remnant.retrieval.ranker import (
    FEATURES,
    RANKER_FEATURES,
    SEEDED_FEATURES,
    LearnedRanker,
    Tree,
    candidate_features,
    load_ranker,
    train_ranker,
)
from remnant.retrieval.rescoring import RecallTuning
from remnant.retrieval.retriever import shipped_ranker

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _interaction_groups() -> list[tuple[list[dict[str, float]], list[bool]]]:
    """The evidence is the candidate where both features are high or both low: no linear model
    over the two orders it first."""
    rnd = random.Random(7)
    groups = []
    for _ in range(80):
        xs, ys = [], []
        for _ in range(12):
            a, b = rnd.random(), rnd.random()
            xs.append({"fused": a, "speaker": b})
            ys.append((a > 0.7 and b > 0.6) or (a < 0.25 and b < 0.25))
        groups.append((xs, ys))
    return groups


def _top5(model: LearnedRanker, groups) -> float:
    vals = []
    for xs, ys in groups:
        scores = model.score_many(xs)
        order = sorted(range(len(xs)), key=lambda j: -scores[j])[:5]
        vals.append(sum(ys[j] for j in order) / max(1, min(5, sum(ys))))
    return sum(vals) / len(vals)


def test_trees_learn_an_interaction_the_linear_model_cannot_and_are_deterministic() -> None:
    groups = _interaction_groups()
    linear = train_ranker(groups, features=("fused", "speaker"))
    boosted = train_ranker(groups, features=("fused", "speaker"), trees=40)
    assert not linear.trees and len(boosted.trees) == 40
    assert _top5(boosted, groups) > _top5(linear, groups) + 0.1
    again = train_ranker(groups, features=("fused", "speaker"), trees=40)
    assert again.to_dict() == boosted.to_dict()


def test_tree_contributions_add_up_to_the_score_and_score_many_agrees() -> None:
    model = train_ranker(_interaction_groups(), features=("fused", "speaker"), trees=20)
    rows = [x for xs, _ in _interaction_groups()[:3] for x in xs]
    many = model.score_many(rows)
    for x, s in zip(rows, many, strict=True):
        parts = model.contributions(x)
        assert set(parts) <= {"fused", "speaker"}
        z = model.bias + sum(parts.values())
        assert model.score(x) == pytest.approx(1.0 / (1.0 + math.exp(-z)))
        assert s == pytest.approx(model.score(x), abs=1e-9)
    assert model.score_many([]) == []


def test_a_model_with_trees_round_trips_and_bad_trees_are_refused(tmp_path) -> None:
    model = train_ranker(_interaction_groups(), features=("fused", "speaker"), trees=5, info={"data": "toy"})
    path = tmp_path / "ranker.json"
    model.save(path)
    again = load_ranker(path)
    assert again is not None and again.to_dict() == model.to_dict()
    x = {"fused": 0.9, "speaker": 0.8}
    assert again.score(x) == pytest.approx(model.score(x), abs=1e-5)
    assert again.used() == {"fused", "speaker"}

    # a linear model of the first format still loads
    old = {**model.to_dict(), "format": "remnant-ranker/1"}
    del old["trees"]
    path.write_text(json.dumps(old), encoding="utf-8")
    first = load_ranker(path)
    assert first is not None and not first.trees

    good = model.to_dict()["trees"][0]
    for bad, message in (
        ({**good, "left": [0] * len(good["left"])}, "child"),
        ({**good, "value": [1.0, *good["value"][1:]]}, "root value"),
        ({**good, "feature": [9, *good["feature"][1:]]}, "does not list"),
        ({**good, "threshold": good["threshold"][:-1]}, "differ in length"),
    ):
        path.write_text(json.dumps({**model.to_dict(), "trees": [bad]}), encoding="utf-8")
        with pytest.raises(RetrievalError, match=message):
            load_ranker(path)


def test_a_tree_model_needs_only_the_features_it_splits_on() -> None:
    tree = Tree(
        feature=(1, -1, -1),
        threshold=(0.5, 0.0, 0.0),
        left=(1, 0, 0),
        right=(2, 0, 0),
        value=(0.0, -0.2, 0.3),
    )
    model = LearnedRanker(
        features=("vector_score", "speaker"),
        weights=(0.0, 0.0),
        mean=(0.0, 0.0),
        scale=(1.0, 1.0),
        trees=(tree,),
    )
    assert model.used() == {"speaker"} and model.usable({"speaker"})
    assert model.contributions({"speaker": 1.0}) == {"speaker": pytest.approx(0.3)}


def _record(i: str, session: str, content: str, speaker: str = "Ann") -> MemoryRecord:
    return MemoryRecord(
        id=i,
        tenant="t",
        user_id="u",
        content=content,
        kind=Kind.EPISODE,
        session_id=session,
        metadata={"speaker": speaker},
        created_at=T0,
    )


def test_the_evidence_cluster_features_read_the_head() -> None:
    records = {
        "a": _record("a", "s1", "We went camping by the lake"),
        "b": _record("b", "s1", "The lake was cold"),
        "c": _record("c", "s2", "Books about camping trips", speaker="Bob"),
    }
    head = [("a", 0.9), ("b", 0.6), ("c", 0.3)]
    x = candidate_features(
        head,
        [("a", 5.0), ("c", 2.0)],
        [],
        records,
        terms=["ann", "camping", "trips"],
        speakers=frozenset({"ann", "bob"}),
        ranges=[],
        when=False,
        entity={"c": 1.0},
        seeded=[("b", 4.0), ("c", 2.0)],
    )
    assert set(x["a"]) == set(FEATURES) - {"vector_own", "vector_context"}
    assert x["a"]["session_mean"] == pytest.approx(0.6) and x["b"]["session_mean"] == pytest.approx(0.9)
    assert x["c"]["session_mean"] == 0.0
    assert x["a"]["session_top"] == pytest.approx(1 / 5) and x["c"]["session_top"] == 0.0
    assert x["c"]["entity"] == 1.0 and x["a"]["entity"] == 0.0
    assert x["b"]["seeded"] == 1.0 and x["c"]["seeded"] == 0.5 and x["a"]["seeded"] == 0.0
    assert x["b"]["seeded_rank"] == 1.0 and x["a"]["seeded_rank"] == 0.0
    # "camping" and "trips" ("trip" stands for both): the speaker's name is no question word here
    assert x["c"]["own_terms"] == 1.0 and x["a"]["own_terms"] == 0.5 and x["b"]["own_terms"] == 0.0
    assert all(x[i]["q_speaker"] == 1.0 and x[i]["q_when"] == 0.0 for i in x)
    assert x["a"]["q_terms"] == pytest.approx(0.2)


def _conversation(path: object, retriever: HybridRetriever) -> Memory:
    mem = Memory(path, clock=ManualClock(T0), retriever=retriever)  # type: ignore[arg-type]
    turns = [
        ("s1", "Ann", "I adopted a puppy called Biscuit from the shelter"),
        ("s1", "Bob", "Lovely, what breed?"),
        ("s2", "Ann", "Biscuit chewed my new sneakers yesterday"),
        ("s2", "Bob", "Haha, puppies do that"),
        ("s3", "Ann", "Weather is nice today"),
    ]
    mem.remember_many(
        [
            {
                "content": text,
                "user_id": "u",
                "kind": "episode",
                "session_id": s,
                "metadata": {"speaker": who},
            }
            for s, who, text in turns
        ],
        supersede=False,
    )
    return mem


def _seeded_model() -> LearnedRanker:
    names = ("lexical_score", "seeded")
    return LearnedRanker(features=names, weights=(1.0, 2.0), mean=(0.0, 0.0), scale=(1.0, 1.0))


def test_the_seeded_round_runs_only_for_a_model_that_uses_it_and_is_one_bounded_query(tmp_path) -> None:
    tuning = RecallTuning(expansion_seeds=1, expansion_terms=3)
    seeded = HybridRetriever(None, ranker=_seeded_model(), tuning=tuning)
    plain = HybridRetriever(
        None,
        ranker=LearnedRanker(features=("lexical_score",), weights=(1.0,), mean=(0.0,), scale=(1.0,)),
        tuning=tuning,
    )
    q = "Which puppy did Ann adopt from the shelter?"
    for retriever, rounds in ((seeded, 2), (plain, 1)):
        mem = _conversation(tmp_path / f"{rounds}.db", retriever)
        calls: list[tuple[str, int]] = []
        search = mem.ledger.store.lexical_search

        def counting(expr, flt, limit, _search=search, _calls=calls):  # type: ignore[no-untyped-def]
            _calls.append((expr, limit))
            return _search(expr, flt, limit=limit)

        mem.ledger.store.lexical_search = counting  # type: ignore[method-assign]
        try:
            hits = mem.recall(q, user_id="u", limit=3, touch=False).hits
            assert "adopted a puppy" in hits[0].memory.content
            assert len(calls) == rounds
            if rounds == 2:
                expr, limit = calls[1]
                # at most expansion_terms words of the first hit that the question lacks
                assert 1 <= expr.count(" OR ") + 1 <= 3 and "shelter" not in expr and limit <= 50
                ex = explain_recall(mem, q, user_id="u", limit=3)
                second = next(h for h in ex.hits if "sneakers" in h.hit.memory.content)
                assert second.ranker_contributions["seeded"] > 0  # it shares "Biscuit" with the first
        finally:
            mem.close()


def test_the_shipped_model_is_trained_on_the_chosen_features_and_explains_them(tmp_path) -> None:
    model = shipped_ranker()
    assert model is not None and model.features == RANKER_FEATURES and not model.trees
    assert {"session_mean", "session_top", "entity"} <= model.used()
    assert not model.used() & SEEDED_FEATURES  # recall runs no seeded round for it
    mem = _conversation(tmp_path / "shipped.db", HybridRetriever(get_embedder("e5-small")))
    try:
        ex = explain_recall(mem, "What is the name of Ann's puppy?", user_id="u", limit=3)
        assert ex.hits and all(h.ranker_score is not None for h in ex.hits)
        for h in ex.hits:
            assert {"session_mean", "session_top", "entity"} <= set(h.ranker_contributions)
    finally:
        mem.close()
