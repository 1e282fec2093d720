"""The engine on a real SQLite file with an injected clock."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import (
    ConflictError,
    DecayConfig,
    Kind,
    ManualClock,
    NotFoundError,
    Status,
    ValidationError,
)
from remnant.core.errors import DecayModeMismatch, SchemaTooNewError, StoreError
from remnant.engine import Memory


def test_remember_and_recall(mem: Memory) -> None:
    r = mem.remember("Ana prefers green tea in the morning", user_id="ana", kind="preference", importance=0.8)
    assert r.kind == Kind.PREFERENCE and r.status == Status.ACTIVE
    assert r.created_at is not None and r.created_at.tzinfo is not None
    hits = mem.recall("green tea", user_id="ana")
    assert [h.memory.id for h in hits] == [r.id]
    assert 0.52 < hits[0].strength <= 1.0
    assert mem.recall("green tea", user_id="bob").hits == []  # scope is strict


def test_recall_reinforces_what_it_returns(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("the wifi password is on the fridge", user_id="ana")
    clock.advance(days=3)
    before = mem.strength(r.id)
    mem.recall("wifi password", user_id="ana")
    after = mem.get(r.id)
    assert after.access_count == 1 and after.last_accessed_at == clock.now()
    assert mem.strength(r.id) > before
    assert after.stability > r.stability


def test_keyed_memories_supersede(mem: Memory, clock: ManualClock) -> None:
    old = mem.remember("lives in Paris", user_id="ana", key="city")
    clock.advance(days=10)
    new = mem.remember("lives in Berlin", user_id="ana", key="city")
    old_now = mem.get(old.id)
    assert old_now.status == Status.SUPERSEDED and old_now.superseded_by == new.id
    assert old_now.valid_to == clock.now()
    assert [h.memory.id for h in mem.recall("lives", user_id="ana")] == [new.id]
    assert [r.id for r in mem.history("city", user_id="ana")] == [old.id, new.id]
    assert mem.current("city", user_id="ana").id == new.id  # type: ignore[union-attr]
    # point-in-time recall sees what was true then
    then = mem.recall("lives", user_id="ana", as_of=clock.now() - timedelta(days=5))
    assert [h.memory.id for h in then] == [old.id]
    assert [e.action for e in mem.audit_log()] == ["supersede"]


def test_memories_fade_and_recall_says_so(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("parked on level 3", user_id="ana", kind="episode", importance=0.2)
    fade = mem.fade_time(r.id)
    assert fade is not None
    clock.set(fade - timedelta(seconds=1))
    assert mem.recall("parked level", user_id="ana", touch=False).hits
    clock.set(fade + timedelta(seconds=1))
    result = mem.recall("parked level", user_id="ana")
    assert result.hits == []
    assert [f.id for f in result.faded] == [r.id] and result.faded[0].reason == "faded"
    report = mem.sweep()
    assert {s.action: s.count for s in report.steps}["fade"] == 1
    assert mem.get(r.id).status == Status.FADED
    mem.review(r.id)  # reviewing brings it back
    assert mem.get(r.id).status == Status.ACTIVE
    assert mem.recall("parked level", user_id="ana").hits


def test_pinned_memories_never_fade(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("allergic to penicillin", user_id="ana", importance=0.0, pinned=True)
    clock.advance(days=3650)
    assert mem.strength(r.id) == 1.0
    assert mem.recall("penicillin", user_id="ana").hits
    with pytest.raises(ConflictError):
        mem.purge(r.id)
    assert mem.purge(r.id, force=True) == 1


def test_ttl_expiry(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("one-time code 493817", user_id="ana", ttl="10m", importance=1.0)
    assert mem.recall("code", user_id="ana").hits
    clock.advance(minutes=11)
    res = mem.recall("code", user_id="ana")
    assert res.hits == [] and res.faded[0].reason == "expired"
    mem.sweep()  # what was said to expire is stored nowhere after its end: expired, then purged
    with pytest.raises(NotFoundError):
        mem.get(r.id)
    assert [e.action for e in mem.audit_log()] == ["expire", "purge_expired"]


def test_validity_windows(mem: Memory) -> None:
    y = lambda year: datetime(year, 1, 1, tzinfo=UTC)  # noqa: E731
    for year, value in ((2022, 8), (2023, 10), (2024, 15)):
        mem.remember(
            f"Product X max concurrency is {value}",
            user_id="kb",
            kind="knowledge",
            valid_from=y(year),
            valid_to=y(year + 1) if year < 2024 else None,
            supersede=False,
        )
    current = mem.recall("max concurrency", user_id="kb", limit=5)
    assert [h.memory.content for h in current] == ["Product X max concurrency is 15"]
    past = mem.recall("max concurrency", user_id="kb", as_of=datetime(2023, 6, 1, tzinfo=UTC))
    assert [h.memory.content for h in past] == ["Product X max concurrency is 10"]


def test_hide_unhide_purge_audited(mem: Memory) -> None:
    r = mem.remember("works at Acme", user_id="ana")
    mem.hide(r.id, reason="user asked")
    assert mem.get(r.id).status == Status.HIDDEN
    assert mem.recall("Acme", user_id="ana").hits == []
    mem.unhide(r.id)
    assert mem.recall("Acme", user_id="ana").hits
    mem.purge(r.id)
    with pytest.raises(NotFoundError):
        mem.unhide(r.id)
    assert [e.action for e in mem.audit_log()] == ["hide", "unhide", "purge"]
    assert "Acme" not in " ".join(e.summary + e.reason for e in mem.audit_log())
    assert mem.verify_audit().ok


def test_active_is_sorted_by_strength(mem: Memory, clock: ManualClock) -> None:
    weak = mem.remember("weak one", user_id="ana", importance=0.1)
    strong = mem.remember("strong one", user_id="ana", importance=0.9)
    clock.advance(hours=1)
    assert [r.id for r, _ in mem.active("ana")] == [strong.id, weak.id]


def test_chinese_recall(mem: Memory) -> None:
    r = mem.remember("我喜欢吃草莓蛋糕", user_id="li", kind="preference")
    assert [h.memory.id for h in mem.recall("草莓", user_id="li")] == [r.id]


def test_erase_user_leaves_no_bytes(mem: Memory, db_path: Path) -> None:
    secret = "Zanzibar-Quokka-7731"
    for i in range(30):
        mem.remember(f"note {i} mentions {secret}", user_id="ana")
    keep = mem.remember("Bob likes chess", user_id="bob")
    report = mem.erase_user("ana")
    assert report.verified and sum(report.removed.values()) == 30
    assert mem.recall(secret, user_id="ana").hits == []
    assert mem.get(keep.id).content == "Bob likes chess"
    blob = b"".join(p.read_bytes() for p in mem.files())
    assert secret.encode() not in blob
    assert b"Quokka" not in blob


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"content": ""}, "empty"),
        ({"content": "   "}, "empty"),
        ({"importance": 1.5}, "importance"),
        ({"importance": -0.1}, "importance"),
        ({"confidence": 2}, "confidence"),
        ({"kind": "opinion"}, "kind"),
        ({"ttl": "soon"}, "duration"),
        ({"expires_at": datetime(2030, 1, 1)}, "timezone"),
        ({"user_id": ""}, "user_id"),
        ({"metadata": {"x": object()}}, "JSON"),
        ({"importance": "high"}, "importance"),
        (
            {"valid_from": datetime(2025, 1, 1, tzinfo=UTC), "valid_to": datetime(2024, 1, 1, tzinfo=UTC)},
            "valid_to",
        ),
    ],
)
def test_bad_input_is_refused_and_nothing_is_lost(mem: Memory, kwargs: dict[str, object], match: str) -> None:
    keep = mem.remember("something to keep", user_id="ana")
    args: dict[str, object] = {"content": "valid text", "user_id": "ana", **kwargs}
    with pytest.raises(ValidationError, match=match):
        mem.remember(**args)  # type: ignore[arg-type]
    assert mem.stats("ana")["total"] == 1 and mem.get(keep.id).content == "something to keep"


def test_data_survives_a_restart(db_path: Path, clock: ManualClock) -> None:
    with Memory(db_path, clock=clock) as m:
        r = m.remember("survives restarts", user_id="ana", key="k", metadata={"tags": ["x"]})
    with Memory(db_path, clock=clock) as m:
        again = m.get(r.id)
        assert again == r
        assert m.recall("restarts", user_id="ana", tags=["x"]).hits


def test_corrupt_and_newer_databases_get_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a Remnant database or is corrupt"):
        Memory(bad)
    assert bad.read_bytes().startswith(b"this is not sqlite")  # nothing overwritten
    newer = tmp_path / "newer.db"
    Memory(newer).close()
    import sqlite3

    c = sqlite3.connect(newer)
    c.execute("INSERT INTO schema_migrations VALUES (999, 'future', 0)")
    c.commit()
    c.close()
    with pytest.raises(SchemaTooNewError, match="upgrade"):
        Memory(newer)
    with pytest.raises(StoreError, match="directory"):
        Memory(tmp_path)


def test_decay_clock_mode_is_fixed_per_database(db_path: Path) -> None:
    Memory(db_path).close()
    with pytest.raises(DecayModeMismatch):
        Memory(db_path, decay=DecayConfig(clock_mode="active_days"))


def test_active_days_clock_ignores_holidays(tmp_path: Path, clock: ManualClock) -> None:
    m = Memory(tmp_path / "a.db", clock=clock, decay=DecayConfig(clock_mode="active_days"))
    r = m.remember("likes jazz", user_id="ana", importance=0.3, kind="episode")
    clock.advance(days=60)  # a long holiday: no activity, no decay
    assert m.strength(r.id) == pytest.approx(r.strength0)
    assert m.recall("jazz", user_id="ana").hits
    for _ in range(30):  # then 30 active days without mentioning it
        clock.advance(days=1)
        m.remember("daily chatter", user_id="ana", kind="episode")
    assert m.strength(r.id) < 0.52
    m.close()


def test_a_purge_leaves_no_bytes_behind(mem: Memory) -> None:
    secret = "Wombat-Glacier-5521"
    keep = [mem.remember(f"filler memory number {i}", user_id="ana") for i in range(20)]
    gone = mem.remember(f"the locker code is {secret}", user_id="ana")
    mem.purge(gone.id)
    blob = b"".join(p.read_bytes() for p in mem.files())
    assert secret.encode() not in blob and b"Glacier" not in blob
    assert all(mem.get(k.id) for k in keep)


def test_purging_a_memory_releases_its_vault_values(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("cryptography")
    from remnant.config import build_memory
    from remnant.privacy.keys import generate_key

    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.setenv("REMNANT_REDACT_PRESIDIO", "off")
    monkeypatch.setenv("REMNANT_PLACEHOLDERS", "stable")  # two memories share one vault value
    m = build_memory(str(tmp_path / "v.db"), clock=clock)
    a = m.remember("my email is first.person@example.org", user_id="ana")
    b = m.remember("again, write to first.person@example.org", user_id="ana")
    c = m.remember("backup mail second.person@example.org", user_id="ana")
    vault = m.redactor.vault  # type: ignore[union-attr]
    assert len(vault.entries("default", "ana")) == 2
    m.purge(a.id)  # b still refers to the first address: it stays
    assert len(vault.entries("default", "ana")) == 2
    m.purge([b.id, c.id])
    assert vault.entries("default", "ana") == []
    m.close()


def test_a_reader_holding_an_old_snapshot_past_the_timeout_is_reported_and_its_end_clears_the_wal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # the WAL keeps the erased text's page images while a reader pins an older snapshot; the purge
    # cannot wait for ever, so it says so, and the next scrub after the reader is gone clears them
    from remnant.store.sqlite import SQLiteStore

    path = tmp_path / "m.db"
    secret = "Quokka-Zanzibar-1188"
    with Memory(store=SQLiteStore(path, timeout=0.2)) as mem:
        r = mem.remember(f"my locker code is {secret}", user_id="ana")
        reader = sqlite3.connect(path)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM memories").fetchone()  # pins this snapshot
        with caplog.at_level("WARNING", logger="remnant.store.sqlite"):
            mem.purge(r.id)
        assert "could not be checkpointed" in caplog.text
        reader.rollback()
        reader.close()
        mem.remember("something else", user_id="bob")
        mem.store.scrub()
        blob = b"".join(p.read_bytes() for p in mem.files())
        assert secret.encode() not in blob


@pytest.mark.parametrize(
    ("question", "memory", "reinforces"),
    [
        ("Which sport do I do on Saturdays?", "On Saturdays I go rowing with friends.", True),
        ("What is my job and where do I work?", "I work as a data analyst at Solace Mobility.", True),
        ("Which town did I grow up in?", "I grew up in the town of Gdansk.", True),
        ("Which school does my son go to?", "My son goes to Lindqvist Primary School.", True),
        ("我的狗叫什么？", "我的狗叫旺财", True),
        ("What is my dog called?", "My cat is called Tom.", False),  # the dog is the subject, not the type
        ("what does a hotel concierge do", "The team offsite is at the Lakeview hotel.", False),
        ("which school?", "My son likes football.", False),
        ("我的猫叫什么？", "我的狗叫旺财", False),
    ],
)
def test_the_noun_a_question_asks_for_is_not_a_word_the_answer_must_share(
    question: str, memory: str, reinforces: bool
) -> None:
    # "which sport …?" is answered by "rowing": the asked-for type is rarely repeated by the answer,
    # so questions asked about a fact reinforce it, while unrelated ones still do not
    from remnant.engine.reinforcement import ReinforcementPolicy

    assert ReinforcementPolicy().recall_reinforces(question, memory) is reinforces
