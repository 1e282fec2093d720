"""The speaker round (``RecallTuning.speaker_round``): a question that names a speaker also gets that
speaker's own nearest and best-matching memories among the learned ranker's candidates, where the
scope-wide lists rank them past the fused head. On a real SQLite file and on PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever
from remnant.retrieval.ranker import LearnedRanker
from remnant.retrieval.retriever import DEFAULT_TUNING

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
QUESTION = "What did Alice plant?"
EVIDENCE = "I grew tomatoes and basil in the back garden this spring"


def _speaker_model() -> LearnedRanker:
    """A model that puts the named speaker's turns first (and knows the speaker round's features)."""
    names = ("lexical_score", "speaker", "speaker_vector_rank", "beyond_head")
    return LearnedRanker(
        features=names, weights=(0.5, 3.0, 0.5, 0.0), mean=(0.0,) * 4, scale=(1.0,) * 4, bias=-1.0
    )


def _retriever(speaker_round: int, ranker: LearnedRanker | bool) -> HybridRetriever:
    return HybridRetriever(
        get_embedder("static"),
        min_similarity=-1.0,
        ranker=ranker,
        tuning=replace(DEFAULT_TUNING, speaker_round=speaker_round),
    )


def _memory(target: object, retriever: HybridRetriever) -> Memory:
    clock = ManualClock(T0)
    if hasattr(target, "embeddings"):
        mem = Memory(store=target, clock=clock, retriever=retriever)  # type: ignore[arg-type]
    else:
        mem = Memory(target, clock=clock, retriever=retriever)  # type: ignore[arg-type]
    # 70 turns of Bob's that share both of the question's words: the fused head (50) is all his
    bob = [f"Alice said she would plant something on day {n}, maybe plant number {n}" for n in range(70)]
    mem.remember_many(
        [
            {
                "content": t,
                "user_id": "u",
                "kind": "episode",
                "session_id": "s1",
                "metadata": {"speaker": "Bob"},
            }
            for t in bob
        ],
        supersede=False,
    )
    alice = [EVIDENCE, "Work was busy again, lots of meetings", "My cat knocked over a glass of water"]
    mem.remember_many(
        [
            {
                "content": t,
                "user_id": "u",
                "kind": "episode",
                "session_id": "s2",
                "metadata": {"speaker": "Alice"},
            }
            for t in alice
        ],
        supersede=False,
    )
    return mem


@pytest.fixture
def target(request, tmp_path):
    if request.param == "sqlite":
        return tmp_path / "speaker.db"
    from remnant.store.postgres import PostgresStore

    return PostgresStore(request.getfixturevalue("pg_url"))


def _id_of(mem: Memory, content: str) -> str:
    return next(r.id for r in mem.store.query(mem.recall_filter("u")) if r.content == content)


@pytest.mark.parametrize("target", ["sqlite", pytest.param("postgres", marks=pytest.mark.pg)], indirect=True)
def test_the_named_speakers_own_turns_join_the_candidates_and_can_rank_first(target) -> None:
    retriever = _retriever(10, _speaker_model())
    mem = _memory(target, retriever)
    try:
        evidence = _id_of(mem, EVIDENCE)
        flt = mem.recall_filter("u")
        trace = retriever.explain(mem.ledger, QUESTION, flt, 5)
        assert evidence in trace.speaker_round and evidence in trace.features
        x = trace.features[evidence]
        assert x["beyond_head"] == 1.0 and x["speaker"] == 1.0 and x["speaker_vector_rank"] > 0
        # Bob's turns are in the head, not brought by the round
        assert all(
            trace.features[i]["beyond_head"] == 0.0 for i in trace.features if i not in trace.speaker_round
        )
        hits = mem.recall(QUESTION, user_id="u", limit=3, touch=False).hits
        assert {h.memory.metadata.get("speaker") for h in hits} == {"Alice"}
        assert hits[0].memory.id == evidence or evidence in {h.memory.id for h in hits}
    finally:
        mem.close()


def test_off_the_round_adds_nothing_and_the_fixed_weights_rank_as_before(tmp_path) -> None:
    off = _retriever(0, _speaker_model())
    mem = _memory(tmp_path / "off.db", off)
    try:
        evidence = _id_of(mem, EVIDENCE)
        trace = off.explain(mem.ledger, QUESTION, mem.recall_filter("u"), 5)
        assert not trace.speaker_round and evidence not in trace.features
        assert all(
            x["beyond_head"] == 0.0 and x["speaker_vector_rank"] == 0.0 for x in trace.features.values()
        )
    finally:
        mem.close()
    # the fixed weights: the same ranking with the round on (its candidates only feed training)
    rankings = []
    for k, name in ((0, "a.db"), (10, "b.db")):
        mem = _memory(tmp_path / name, _retriever(k, False))
        try:
            hits = mem.recall(QUESTION, user_id="u", limit=60, touch=False).hits
            rankings.append([(h.memory.content, round(h.score, 9)) for h in hits])
            if k:
                trace = mem.retriever.explain(mem.ledger, QUESTION, mem.recall_filter("u"), 5)  # type: ignore[union-attr]
                assert trace.speaker_round  # recorded for training
        finally:
            mem.close()
    assert rankings[0] == rankings[1]


def test_a_question_naming_no_speaker_opens_no_round(tmp_path) -> None:
    retriever = _retriever(10, _speaker_model())
    mem = _memory(tmp_path / "n.db", retriever)
    try:
        trace = retriever.explain(mem.ledger, "what was planted on day 3?", mem.recall_filter("u"), 5)
        assert not trace.speaker_round
    finally:
        mem.close()


def test_the_speakers_stored_names_follow_writes(tmp_path) -> None:
    retriever = _retriever(10, _speaker_model())
    mem = _memory(tmp_path / "w.db", retriever)
    try:
        flt = mem.recall_filter("u")
        assert retriever.speaker_values(mem.ledger, flt) == {"Alice", "Bob"}
        assert {"alice", "bob"} <= retriever.speakers(mem.ledger, flt)
        mem.remember_many(
            [
                {
                    "content": "hello there",
                    "user_id": "u",
                    "kind": "episode",
                    "session_id": "s3",
                    "metadata": {"speaker": "Carol Ann"},
                }
            ],
            supersede=False,
        )
        assert retriever.speaker_values(mem.ledger, flt) == {"Alice", "Bob", "Carol Ann"}
        assert {"carol", "carol ann"} <= retriever.speakers(mem.ledger, flt)
        trace = retriever.explain(mem.ledger, "what did Carol say?", flt, 5)
        assert {mem.get(i).content for i in trace.speaker_round} <= {"hello there"}  # type: ignore[union-attr]
    finally:
        mem.close()


def test_a_model_trained_with_the_round_runs_it_at_the_size_it_records(tmp_path) -> None:
    """A model file trained on the round's candidates (``--speaker-round K``) records K; a retriever
    whose tuning leaves the round off runs it for that model, held to MAX_SPEAKER_ROUND."""
    from remnant.bench.eval.locomo_folds import ranker_features
    from remnant.retrieval.ranker import RANKER_FEATURES, SPEAKER_FEATURES

    assert ranker_features(0) == RANKER_FEATURES
    assert set(ranker_features(25)) == set(RANKER_FEATURES) | SPEAKER_FEATURES
    trained = replace(_speaker_model(), info={"speaker_round": 10})
    retriever = _retriever(0, trained)
    mem = _memory(tmp_path / "m.db", retriever)
    try:
        evidence = _id_of(mem, EVIDENCE)
        trace = retriever.explain(mem.ledger, QUESTION, mem.recall_filter("u"), 5)
        assert evidence in trace.speaker_round
        assert (
            mem.recall(QUESTION, user_id="u", limit=3, touch=False).hits[0].memory.metadata["speaker"]
            == "Alice"
        )
        # without the record, or for a model that does not use the features, no round
        assert (
            not _retriever(0, _speaker_model())
            .explain(mem.ledger, QUESTION, mem.recall_filter("u"), 5)
            .speaker_round
        )
    finally:
        mem.close()
