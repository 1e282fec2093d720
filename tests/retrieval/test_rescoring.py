"""Recall after fusion: event dates, temporal boosts, the second round and diversity."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np

from remnant.core.clock import ManualClock
from remnant.core.model import MemoryRecord
from remnant.engine import Memory
from remnant.retrieval.rescoring import (
    RecallTuning,
    cap_sessions,
    diversify,
    event_ranges,
    event_text,
    feedback_vector,
    is_when_question,
    merge_rounds,
    merge_scaled,
    temporal_factor,
)
from remnant.retrieval.retriever import HybridRetriever
from remnant.understand.timeexpr import resolve

SAID = datetime(2023, 6, 2, 10, tzinfo=UTC)


def rec(text: str, said: datetime | None = SAID) -> MemoryRecord:
    return MemoryRecord(id=text[:8], user_id="u", content=text, occurred_at=said, created_at=SAID)


def test_event_dates_resolve_against_when_it_was_said() -> None:
    r = rec("Last month I went to Rome, and yesterday I painted")
    days = [(x.start, x.end) for x in event_ranges(r)]
    assert (date(2023, 6, 2), date(2023, 6, 3)) in days  # the day it was said
    assert (date(2023, 5, 1), date(2023, 6, 1)) in days  # "last month"
    assert (date(2023, 6, 1), date(2023, 6, 2)) in days  # "yesterday"
    assert event_text(r) == "May 2023 1 June 2023"
    assert event_text(rec("I like tea")) == ""


def test_temporal_factor() -> None:
    t = RecallTuning(temporal_boost=0.5, when_boost=0.2)
    may = resolve("in May", datetime(2026, 1, 1, tzinfo=UTC))  # yearless: any May
    assert temporal_factor(rec("Last month I went to Rome"), may, False, t) == 1.5
    assert temporal_factor(rec("I went to Rome"), may, False, t) == 1.0
    assert temporal_factor(rec("I went to Rome yesterday"), [], True, t) == 1.2
    assert is_when_question("When did Ana go to Rome?") and is_when_question("她什么时候去的罗马？")
    assert not is_when_question("Where did Ana go?")


def test_merge_and_diversify() -> None:
    assert merge_rounds([("a", 1.0), ("b", 0.5)], [("c", 4.0), ("b", 2.0)], 0.5) == [
        ("a", 1.0),
        ("b", 0.75),
        ("c", 0.5),
    ]
    texts = {"a": "pottery class bowls", "b": "pottery class bowls again", "c": "a trip to Lisbon"}
    ranked = [("a", 1.0), ("b", 0.95), ("c", 0.8)]
    assert [i for i, _ in diversify(ranked, texts, 3, 0.0)] == ["a", "b", "c"]
    assert [i for i, _ in diversify(ranked, texts, 3, 0.5)] == ["a", "c", "b"]


def test_recall_boosts_what_happened_in_the_month_asked(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 3, 1, tzinfo=UTC))
    tuned = HybridRetriever(None, tuning=RecallTuning(temporal_boost=1.0))
    with Memory(tmp_path / "m.db", clock=clock, retriever=tuned) as mem:
        june = mem.remember("I visited Rome with my sister", user_id="u", occurred_at=SAID)
        # (min-max fusion scores the weakest lexical match 0, which no boost lifts: give it a third)
        mem.remember("Rome has many old churches", user_id="u", occurred_at=SAID)
        may = mem.remember(
            "Last month I visited Rome with friends",
            user_id="u",
            occurred_at=datetime(2023, 6, 20, tzinfo=UTC),
        )
        hits = mem.recall("Who did I visit Rome with in May?", user_id="u", touch=False).hits
        assert hits[0].memory.id == may.id
        assert june.id in {h.memory.id for h in hits}


def test_session_cap_lets_other_sessions_into_the_top() -> None:
    ranked = [("a1", 1.0), ("a2", 0.9), ("a3", 0.8), ("b1", 0.7), ("c1", 0.6), ("a4", 0.5)]
    sessions = {"a1": "A", "a2": "A", "a3": "A", "a4": "A", "b1": "B", "c1": "C"}
    assert cap_sessions(ranked, sessions, 4, 0) == ranked
    capped = [i for i, _ in cap_sessions(ranked, sessions, 4, 2)]
    assert capped[:4] == ["a1", "a2", "b1", "c1"]
    assert sorted(capped) == sorted(i for i, _ in ranked)  # nothing dropped, only pushed down
    # memories without a session are never capped; too few sessions: the rest still fill the list
    assert [i for i, _ in cap_sessions([("x", 1.0), ("y", 0.9)], {}, 2, 1)] == ["x", "y"]
    assert [i for i, _ in cap_sessions(ranked[:3], sessions, 3, 1)] == ["a1", "a2", "a3"]


def test_feedback_vector_moves_the_question_towards_its_first_hits() -> None:
    q = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    seeds = np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    v = feedback_vector(q, seeds)
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-6
    assert v[0] > v[1] == v[2] > 0  # the question still weighs most; each seed counts alike
    assert np.allclose(feedback_vector(q * 3, np.zeros((0, 3), dtype=np.float32)), q)


def test_merge_scaled_normalises_close_cosines() -> None:
    merged = merge_scaled([("a", 1.0), ("b", 0.5)], [("b", 0.86), ("c", 0.84), ("a", 0.80)], 0.5)
    assert dict(merged)["b"] == 1.0 and abs(dict(merged)["c"] - 0.5 * 4 / 6) < 1e-9
    assert merge_scaled([("a", 1.0)], [("b", 0.9)], 0.0) == [("a", 1.0)]
