"""The vector feedback round and the session cap through the engine, on small synthetic conversations.

The embedder here is a tiny topic model written for the test (each text's vector counts its topic
words), so which memory is near which is known exactly; everything else is the real engine on a
real SQLite file.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from remnant.core.clock import ManualClock
from remnant.engine import Memory
from remnant.retrieval.rescoring import RecallTuning, without_names
from remnant.retrieval.retriever import HybridRetriever

TOPICS = (("hobby", "hobbies", "fun"), ("pottery", "kiln", "clay", "bowls"), ("weather", "rain"))


class TopicEmbedder:
    model_id = "test-topics"

    @property
    def dim(self) -> int:
        return len(TOPICS) + 1

    def _one(self, text: str) -> np.ndarray:
        words = text.lower().replace("?", " ").replace(",", " ").split()
        v = np.array([sum(w in t for w in words) for t in TOPICS] + [0.05], dtype=np.float32)
        return v / np.linalg.norm(v)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)


def ingest(mem: Memory) -> dict[str, str]:
    said = datetime(2023, 5, 8, tzinfo=UTC)
    texts = [
        "pottery is my favourite hobby",  # shares a topic with the question and with the kiln turn
        "the kiln fired my clay bowls",  # no word and no topic in common with the question
        "more rain today",
        "the rain again",
        "weather is bad",
    ]
    recs = mem.remember_many(
        [{"content": t, "user_id": "ana", "occurred_at": said} for t in texts], supersede=False
    )
    return {r.content: r.id for r in recs}


def test_vector_feedback_finds_what_only_the_first_hits_are_about(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    for weight, found in ((0.0, False), (0.5, True)):
        retriever = HybridRetriever(
            TopicEmbedder(),
            min_similarity=0.3,
            tuning=RecallTuning(vector_feedback=weight, expansion_seeds=1),
        )
        with Memory(tmp_path / f"m{weight}.db", clock=clock, retriever=retriever) as mem:
            ids = ingest(mem)
            hits = [h.memory.id for h in mem.recall("any hobbies?", user_id="ana", touch=False).hits]
            assert hits[0] == ids["pottery is my favourite hobby"]
            assert (ids["the kiln fired my clay bowls"] in hits) is found


def test_session_cap_brings_a_second_session_into_the_top(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    for cap in (0, 2):
        retriever = HybridRetriever(None, tuning=RecallTuning(session_cap=cap))
        with Memory(tmp_path / f"c{cap}.db", clock=clock, retriever=retriever) as mem:
            first = [f"camping trip number {i} with camping gear" for i in range(4)]
            mem.remember_many(
                [{"content": t, "user_id": "u", "session_id": "s1", "kind": "episode"} for t in first],
                supersede=False,
            )
            other = mem.remember("we went camping once", user_id="u", session_id="s2", kind="episode")
            top3 = [h.memory.id for h in mem.recall("camping", user_id="u", limit=3, touch=False).hits]
            assert (other.id in top3) is bool(cap)


def test_names_stay_out_of_the_vector_query_only() -> None:
    assert without_names("What is Caroline's identity?") == "What is identity?"
    assert (
        without_names("When did Melanie go camping with Caroline in May?")
        == "When did go camping with in May?"
    )
    assert without_names("What did I say about LGBTQ events?") == "What did I say about events?"
    assert without_names("Who is Ana?") == "Who is Ana?"  # nothing but the name: the query itself
    assert without_names("what did caroline research?") == "what did caroline research?"
    assert without_names("她上周去了哪里？") == "她上周去了哪里？"


class RecordingEmbedder(TopicEmbedder):
    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return super().embed_query(text)


def test_recall_embeds_the_question_without_names_and_still_boosts_the_speaker(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    emb = RecordingEmbedder()
    retriever = HybridRetriever(emb, min_similarity=-1.0, tuning=RecallTuning(strip_names=True))
    with Memory(tmp_path / "n.db", clock=clock, retriever=retriever) as mem:
        ana = mem.remember("my hobby is pottery", user_id="u", metadata={"speaker": "Ana"})
        mem.remember("my hobby is pottery too", user_id="u", metadata={"speaker": "Bo"})
        hits = mem.recall("What is Ana's hobby?", user_id="u", touch=False).hits
        assert emb.queries[-1] == "What is hobby?"
        assert hits[0].memory.id == ana.id  # the lexical half and the speaker boost still see the name
