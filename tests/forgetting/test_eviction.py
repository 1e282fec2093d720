"""The importance score (pure function = SQL), threshold eviction, pins, capacity, dry runs."""

from __future__ import annotations

import math
import random
from datetime import timedelta
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.core.importance import ImportanceWeights, importance_score, importance_score_raw
from remnant.core.model import MemoryRecord, Status
from remnant.engine.forgetting.eviction import EvictionPolicy, eviction_candidates
from remnant.engine.forgetting.sweep import SweepPolicy
from remnant.engine.memory import Memory
from remnant.store.base import MemoryFilter, Store

from .conftest import START


def test_score_follows_the_seed_formula() -> None:
    now = START.timestamp()
    day = 86_400.0
    base = {
        "created_at": now - 10 * day,
        "access_count": 3,
        "confidence": 0.9,
        "importance": 0.5,
        "pinned": False,
    }
    s = importance_score_raw(now=now, last_accessed_at=now - 4 * day, **base)  # type: ignore[arg-type]
    w = ImportanceWeights()
    expected = 0.9 * (1 / 5 + math.log(4)) * (1 + w.mark_weight * 0.5) * w.decay_per_day**10
    assert s == pytest.approx(expected)
    # more use, more recent use, more reliable source, a user mark: each raises the score
    assert importance_score_raw(now=now, last_accessed_at=now - day, **base) > s  # type: ignore[arg-type]
    assert importance_score_raw(now=now, last_accessed_at=now - 4 * day, **{**base, "access_count": 9}) > s  # type: ignore[arg-type]
    assert importance_score_raw(now=now, last_accessed_at=now - 4 * day, **{**base, "confidence": 1.0}) > s  # type: ignore[arg-type]
    assert importance_score_raw(now=now, last_accessed_at=now - 4 * day, **{**base, "importance": 0.9}) > s  # type: ignore[arg-type]
    # age decays it; a pin makes it infinite
    assert (
        importance_score_raw(
            now=now, last_accessed_at=now - 4 * day, **{**base, "created_at": now - 90 * day}
        )
        < s
    )  # type: ignore[arg-type]
    assert importance_score_raw(now=now, last_accessed_at=None, **{**base, "pinned": True}) == math.inf  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ImportanceWeights(decay_per_day=1.5)


def test_sql_score_matches_the_pure_function(mem: Memory, clock: ManualClock) -> None:
    rng = random.Random(3)
    for i in range(60):
        r = mem.remember(
            f"memory {i}",
            user_id=f"u{i % 3}",
            importance=rng.random(),
            confidence=rng.random(),
            pinned=i % 17 == 0,
        )
        for _ in range(rng.randint(0, 4)):
            clock.advance(hours=rng.randint(1, 200))
            mem.touch(r.id)
    clock.advance(days=40)
    now = clock.now().timestamp()
    flt = MemoryFilter(tenant=mem.tenant, statuses=None)
    sql = {
        i: s
        for i, _, s in mem.store.low_importance(flt, now=now, decay_per_day=0.99, mark_weight=4.0, below=1e9)
    }
    py = {
        i: s
        for i, _, s in Store.low_importance(
            mem.store, flt, now=now, decay_per_day=0.99, mark_weight=4.0, below=1e9
        )
    }
    assert sql.keys() == py.keys() and len(sql) == 60 - 4  # pinned ones never come back
    for mid, score in sql.items():
        assert score == pytest.approx(py[mid], rel=1e-9)
        assert score == pytest.approx(importance_score(mem.get(mid), clock.now()), rel=1e-9)
    keep = 5
    sql_over = sorted(mem.store.over_capacity(flt, now=now, decay_per_day=0.99, mark_weight=4.0, keep=keep))
    py_over = sorted(
        Store.over_capacity(mem.store, flt, now=now, decay_per_day=0.99, mark_weight=4.0, keep=keep)
    )
    assert [t[0] for t in sql_over] == [t[0] for t in py_over]


def _record(mem: Memory, rid: str) -> MemoryRecord:
    return mem.get(rid)


def test_eviction_removes_low_scores_unaccessed_for_n_days_and_spares_pins(
    mem: Memory, clock: ManualClock
) -> None:
    idle = mem.remember("an idle remark", user_id="ana", importance=0.0)
    marked = mem.remember("an idle but important remark", user_id="ana", importance=1.0)
    pinned = mem.remember("a pinned remark", user_id="ana", importance=0.0, pinned=True)
    used = mem.remember("a remark used every week", user_id="ana", importance=0.0)
    policy = SweepPolicy(evict=EvictionPolicy(threshold=0.01, unaccessed_days=30))
    idle_day = marked_day = 0
    for day in range(1, 161):
        clock.advance(days=1)
        if day % 7 == 0:
            mem.touch(used.id)
        report = mem.sweep(policy=policy)
        evicted = [i for s in report.steps if s.action == "evict" for i in s.ids]
        if idle.id in evicted:
            idle_day = day
        if marked.id in evicted:
            marked_day = day
    assert 50 <= idle_day < marked_day <= 140  # a user's mark keeps a memory longer
    assert mem.get(pinned.id).status in (Status.ACTIVE, Status.FADED)
    assert mem.get(used.id)
    entries = mem.audit_log(action="evict")
    assert {i for e in entries for i in e.memory_ids} == {idle.id, marked.id}
    assert all(e.policy == "importance" and e.batch_id and e.batch_id.startswith("sweep_") for e in entries)
    assert all("idle" not in e.summary for e in entries)  # the audit never holds content


def test_recent_access_protects_a_low_score(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("low value", user_id="ana", importance=0.0, confidence=0.1)
    clock.advance(days=200)
    mem.touch(r.id)  # accessed just now: unaccessed_days is not met, whatever the score
    clock.advance(days=2)
    found = eviction_candidates(mem.ledger, EvictionPolicy(), clock.now())
    assert found["evict"] == []
    clock.advance(days=40)
    assert [c[0] for c in eviction_candidates(mem.ledger, EvictionPolicy(), clock.now())["evict"]] == [r.id]


def test_capacity_keeps_the_best_n_per_user_and_pins_count_first(mem: Memory, clock: ManualClock) -> None:
    ids = {}
    for i in range(8):
        ids[i] = mem.remember(f"note {i}", user_id="ana", importance=i / 10).id
    pin = mem.remember("pinned note", user_id="ana", pinned=True).id
    other = [mem.remember(f"bob note {i}", user_id="bob").id for i in range(3)]
    clock.advance(days=1)
    policy = SweepPolicy(evict=EvictionPolicy(capacity=4))
    dry = mem.sweep(dry_run=True, policy=policy)
    step = next(s for s in dry.steps if s.action == "evict_capacity")
    assert step.count == 5  # 9 memories, keep 4: the pin and the three most important
    assert all(mem.get(i) for i in step.ids)  # a dry run changes nothing
    report = mem.sweep(policy=policy)
    gone = set(next(s for s in report.steps if s.action == "evict_capacity").ids)
    assert gone == {ids[i] for i in range(5)}
    assert {r.id for r in mem.list_memories("ana")} == {pin, ids[5], ids[6], ids[7]}
    assert len(mem.list_memories("bob")) == 3 and set(other)
    assert mem.audit_log(action="evict_capacity")[0].policy == "capacity"


def test_knowledge_is_not_evicted_and_bad_policies_are_refused(mem: Memory, clock: ManualClock) -> None:
    k = mem.remember("Product X supports 500 connections", user_id="kb", kind="knowledge", importance=0.0)
    clock.advance(days=400)
    assert eviction_candidates(mem.ledger, EvictionPolicy(), clock.now())["evict"] == []
    assert mem.get(k.id)
    with pytest.raises(ValidationError):
        EvictionPolicy(threshold=-1)
    with pytest.raises(ValidationError):
        EvictionPolicy(capacity=-3)
    with pytest.raises(ValidationError):
        EvictionPolicy(action="shred")  # type: ignore[arg-type]


def test_eviction_can_hide_instead_of_purge(db_path: Path, clock: ManualClock) -> None:
    mem = Memory(db_path, clock=clock)
    r = mem.remember("hide me when idle", user_id="ana", importance=0.0)
    clock.advance(days=90)
    mem.sweep(policy=SweepPolicy(evict=EvictionPolicy(action="hide"), fade=False))
    assert mem.get(r.id).status == Status.HIDDEN
    assert mem.unhide(r.id).status == Status.ACTIVE
    clock.advance(timedelta(days=1))
    mem.close()


def test_id_users_groups_by_user_like_the_fallback(mem: Memory) -> None:
    for i in range(12):
        mem.remember(f"remark {i}", user_id=f"u{i % 4}")
    flt = MemoryFilter(tenant=mem.tenant, statuses=None)
    pairs = mem.store.id_users(flt)
    assert [u for _, u in pairs] == sorted(u for _, u in pairs)
    assert sorted(pairs) == sorted(Store.id_users(mem.store, flt))
