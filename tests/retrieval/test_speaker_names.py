"""The speakers' names out of the vector query (``RecallTuning.strip_speakers``).

The names a scope's memories were said by are read from the store (``metadata["speaker"]``); only
those leave the question the vector half embeds. Other names are content and stay. The embedder
is a tiny topic model written for the test (each text's vector counts its topic words), so which
memory is near which is known exactly; everything else is the real engine on a real SQLite file.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from remnant.core.clock import ManualClock
from remnant.engine import Memory
from remnant.retrieval.rescoring import RecallTuning, speaker_names, without_speakers
from remnant.retrieval.retriever import HybridRetriever
from remnant.store.base import MemoryFilter

CLOCK = datetime(2026, 1, 1, tzinfo=UTC)
TOPICS = (("hobby", "hobbies", "pottery"), ("weather", "rain", "sunny"), ("ana",), ("bo",))


class RecordingEmbedder:
    """Counts topic words; remembers every query it embeds."""

    model_id = "test-topics"

    def __init__(self) -> None:
        self.queries: list[str] = []

    @property
    def dim(self) -> int:
        return len(TOPICS) + 1

    def _one(self, text: str) -> np.ndarray:
        words = text.lower().replace("?", " ").replace(",", " ").replace(":", " ").replace("'s", "").split()
        v = np.array([sum(w in t for w in words) for t in TOPICS] + [0.05], dtype=np.float32)
        return v / np.linalg.norm(v)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return self._one(text)


def test_speaker_names_are_case_folded_and_split_into_their_words() -> None:
    assert speaker_names(["Jon", "Gina"]) == {"jon", "gina"}
    assert speaker_names(["Caroline  Smith"]) == {"caroline smith", "caroline", "smith"}
    assert speaker_names(["The Captain"]) == {"the captain", "captain"}  # "the" is a stop word
    assert speaker_names(["小明", "", "  "]) == {"小明"}  # CJK kept whole; blanks give nothing


def test_only_the_speakers_names_leave_the_question() -> None:
    names = speaker_names(["Jon", "Gina"])
    assert without_speakers("What does Jon's dance studio offer?", names) == "What does dance studio offer?"
    assert (
        without_speakers("What did Jon say about NYC, enticing Gina to visit?", names)
        == "What did say about NYC, enticing to visit?"
    )
    # someone who is not a speaker is content: the vector half keeps the name
    assert (
        without_speakers("Which Harry Potter book did Jon read?", names)
        == "Which Harry Potter book did read?"
    )
    assert without_speakers("what does jon cook?", names) == "what does cook?"  # any case
    assert without_speakers("What about Jonathan?", names) == "What about Jonathan?"  # whole words only
    assert without_speakers("Jon?", names) == "Jon?"  # nothing but the name: the question itself
    assert without_speakers("What does Jon like?", frozenset()) == "What does Jon like?"


def test_a_speaker_named_like_a_common_word_is_removed_only_as_a_name() -> None:
    names = speaker_names(["Will", "May"])
    assert without_speakers("What will the weather be?", names) == "What will the weather be?"
    assert without_speakers("Will you tell me what Will cooked?", names) == "Will you tell me what cooked?"
    assert without_speakers("Where did May travel in May?", names) == "Where did travel in?"


def test_chinese_speaker_names_leave_the_question_too() -> None:
    names = speaker_names(["小明", "李华"])
    assert without_speakers("小明上周去了哪里？", names) == "上周去了哪里？"
    assert without_speakers("李华送给小明什么礼物？", names) == "送给什么礼物？"
    assert without_speakers("王芳喜欢什么？", names) == "王芳喜欢什么？"  # not a speaker: content
    assert without_speakers("小明？", names) == "小明？"


def ingest(mem: Memory) -> dict[str, str]:
    turns = [("Ana", "pottery is my favourite hobby"), ("Bo", "more rain today"), ("Bo", "it was sunny")]
    recs = mem.remember_many(
        [{"content": t, "user_id": "u", "occurred_at": CLOCK, "metadata": {"speaker": s}} for s, t in turns],
        supersede=False,
    )
    return {r.content: r.id for r in recs}


def test_recall_embeds_the_question_once_without_the_scopes_speakers(tmp_path: Path) -> None:
    emb = RecordingEmbedder()
    retriever = HybridRetriever(emb, min_similarity=-1.0, tuning=RecallTuning(strip_speakers=True))
    with Memory(tmp_path / "s.db", clock=ManualClock(CLOCK), retriever=retriever) as mem:
        ids = ingest(mem)
        hits = mem.recall("What is Ana's hobby, says Harry?", user_id="u", touch=False).hits
        assert emb.queries == ["What is hobby, says Harry?"]  # one embedding; Harry is no speaker
        assert hits[0].memory.id == ids["pottery is my favourite hobby"]
        # a speaker written after the first recall is known to the next one
        mem.remember("I like rain", user_id="u", metadata={"speaker": "Cy"})
        mem.recall("Does Cy like rain?", user_id="u", touch=False)
        assert emb.queries[-1] == "Does like rain?"
        # another user's speakers are not this one's
        mem.remember("hello", user_id="w", metadata={"speaker": "Dee"})
        mem.recall("What did Dee say about rain?", user_id="u", touch=False)
        assert emb.queries[-1] == "What did Dee say about rain?"
        assert retriever.speakers(mem, _scope("u")) == {"ana", "bo", "cy"}


def _scope(user: str) -> MemoryFilter:
    return MemoryFilter(user_id=user)


def test_speakers_are_read_from_the_store_by_a_new_process(tmp_path: Path) -> None:
    with Memory(
        tmp_path / "p.db", clock=ManualClock(CLOCK), retriever=HybridRetriever(RecordingEmbedder())
    ) as mem:
        ingest(mem)
    emb = RecordingEmbedder()
    retriever = HybridRetriever(emb, min_similarity=-1.0, tuning=RecallTuning(strip_speakers=True))
    with Memory(tmp_path / "p.db", clock=ManualClock(CLOCK), retriever=retriever) as mem:
        mem.recall("When did Bo see rain?", user_id="u", touch=False)
        assert emb.queries == ["When did see rain?"]


def test_off_by_default_the_question_is_embedded_as_asked(tmp_path: Path) -> None:
    emb = RecordingEmbedder()
    with Memory(tmp_path / "d.db", clock=ManualClock(CLOCK), retriever=HybridRetriever(emb)) as mem:
        ingest(mem)
        mem.recall("What is Ana's hobby?", user_id="u", touch=False)
        assert emb.queries == ["What is Ana's hobby?"]


def test_a_heavier_vector_half_on_questions_about_a_speaker(tmp_path: Path) -> None:
    # "Bo: it was sunny" shares no word with the question (the lexical half finds only the rain
    # turn); the vector half, freed of the name, puts it level with the rain turn (both weather)
    question = "How was the weather for Bo, rain?"
    order = {}
    for weight in (0.0, 0.9):
        tuning = RecallTuning(strip_speakers=True, speaker_vector_weight=weight)
        retriever = HybridRetriever(RecordingEmbedder(), min_similarity=-1.0, tuning=tuning)
        with Memory(tmp_path / f"w{weight}.db", clock=ManualClock(CLOCK), retriever=retriever) as mem:
            ids = ingest(mem)
            trace = retriever.explain(mem, question, _scope("u"), 3)
            order[weight] = trace.fused.get(ids["it was sunny"], 0.0)
            assert trace.ranking[0][0] == ids["more rain today"]
    assert order[0.9] > order[0.0]
