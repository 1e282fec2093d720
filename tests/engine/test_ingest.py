"""Memory.add (salience, facts, expiry in words), consolidation before fading, and reinforcement
that follows use, through the product as users open it (build_memory) and the bare engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, ValidationError
from remnant.config import build_memory
from remnant.core.model import Kind
from remnant.engine import Memory
from remnant.extract.ingest import expiry_in_words
from remnant.extract.salience import salience

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def product(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Memory, ManualClock]:
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    clock = ManualClock(T0)
    return build_memory(str(tmp_path / "m.db"), clock=clock), clock


def test_a_conversation_keeps_what_matters_and_lets_filler_fade(product: tuple[Memory, ManualClock]) -> None:
    mem, clock = product
    out = mem.add(
        [
            {"role": "user", "content": "hi there"},
            {"role": "assistant", "content": "Hello! How can I help?"},
            {"role": "user", "content": "My daughter starts at Maple Grove in September"},
            {"role": "user", "content": "thanks!"},
            {"role": "user", "content": "I moved to Berlin last month"},
        ],
        user_id="ana",
        session_id="s1",
    )
    by_text = {e.content: e for e in out.episodes}
    assert by_text["hi there"].importance < 0.2 and by_text["thanks!"].importance < 0.2
    assert by_text["My daughter starts at Maple Grove in September"].importance >= 0.5
    assert all(e.session_id == "s1" and e.kind == Kind.EPISODE for e in out.episodes)
    assert out.facts and {f.metadata["from_episode"] for f in out.facts} <= {e.id for e in out.episodes}
    for _ in range(30):  # a month of daily sweeps
        clock.advance(timedelta(days=1))
        mem.sweep()
    remembered = " | ".join(r.content for r, _ in mem.active("ana"))
    assert "Maple Grove" in remembered and "Berlin" in remembered
    assert "hi there" not in remembered and "thanks" not in remembered and "How can I help" not in remembered
    hit = mem.recall("which school does my daughter go to", user_id="ana")
    assert hit.hits and "Maple Grove" in hit.hits[0].memory.content


def test_consolidation_is_audited_with_provenance(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    mem = Memory(str(tmp_path / "m.db"), clock=clock)
    ep = mem.remember("we are adopting a puppy next week", user_id="bo", kind="episode", importance=0.8)
    clock.advance(timedelta(days=1))
    assert [s.count for s in mem.sweep().steps if s.action == "consolidate"] == [0]  # not due yet
    clock.advance(timedelta(days=3))  # it fades after ~5.6 days: now within the 2-day horizon
    report = mem.sweep()
    assert [s.count for s in report.steps if s.action == "consolidate"] == [1]
    facts = mem.list_memories("bo", kinds=["fact"])
    assert len(facts) == 1 and facts[0].metadata["derived_from"] == [ep.id]
    assert facts[0].confidence < 1.0 and facts[0].source == "consolidation"
    assert mem.get(ep.id).metadata["consolidated_into"] == facts[0].id
    assert mem.audit_log(action="consolidate")[0].memory_ids == (ep.id,)
    mem.sweep()  # once only
    assert len(mem.list_memories("bo", kinds=["fact"])) == 1
    assert mem.verify_audit().ok


def test_expiry_said_in_words_sets_the_ttl(product: tuple[Memory, ManualClock]) -> None:
    mem, clock = product
    out = mem.add("the door code is 4471, valid for ten minutes", user_id="ana")
    assert out.episodes[0].expires_at == T0 + timedelta(minutes=10)
    clock.advance(timedelta(minutes=11))
    assert not mem.recall("door code", user_id="ana").hits
    assert expiry_in_words("十分钟内有效") == timedelta(minutes=10)
    assert expiry_in_words("两小时后过期") == timedelta(hours=2)
    assert expiry_in_words("good for the next 48h") == timedelta(hours=48)
    assert expiry_in_words("I waited ten minutes for the bus") is None
    assert expiry_in_words("我跑了半小时") is None


def test_salience_cues_in_both_languages() -> None:
    assert salience("我每天早上跑五公里").score >= 0.5
    assert salience("好的").score < 0.2
    assert salience("hello", role="assistant").score < salience("hello").score
    assert "habit" in salience("every morning I walk the dog").cues


def test_add_validates_messages(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "m.db"))
    with pytest.raises(ValidationError):
        mem.add([], user_id="ana")
    with pytest.raises(ValidationError):
        mem.add([{"role": "robot", "content": "x"}], user_id="ana")
    with pytest.raises(ValidationError):
        mem.add([{"role": "user", "content": 3}], user_id="ana")
    plain = mem.add("I live in Lyon", user_id="ana", infer=False)
    assert plain.episodes[0].importance == 0.2 and not plain.facts


def test_recall_only_loops_leave_decay_unchanged(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    mem = Memory(str(tmp_path / "m.db"), clock=clock)
    kept = mem.remember("The wifi password is hunter2", user_id="ana", importance=0.5)
    before = kept.stability, kept.strength0
    for i in range(100):  # an agent loop recalling every turn with unrelated questions
        mem.recall(f"what is the capital of country number {i}", user_id="ana")
        mem.recall("", user_id="ana")  # the "strongest memories" listing
    after = mem.get(kept.id)
    assert (after.stability, after.strength0) == before and after.access_count == 0
    mem.recall("wifi password", user_id="ana")  # a relevant recall does reinforce
    assert mem.get(kept.id).access_count == 1


def test_used_is_stronger_than_recall(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    mem = Memory(str(tmp_path / "m.db"), clock=clock)
    a = mem.remember("Ana likes oolong tea", user_id="ana")
    b = mem.remember("Ana likes green tea", user_id="ana")
    clock.advance(timedelta(days=20))
    mem.touch(a.id)
    mem.used(b.id)
    assert mem.get(b.id).stability > mem.get(a.id).stability
    assert mem.used(["mem_gone"]) == []
