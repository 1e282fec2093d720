"""A simulated year: the decay model itself, and every forgetting policy driven by a daily sweep."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.forgetting.eviction import EvictionPolicy
from remnant.engine.forgetting.sweep import SweepPolicy
from remnant.engine.memory import Memory

from .conftest import START

REVIEW_DAYS = {1, 3, 7, 14, 30, 60, 120, 240}


def test_spaced_reviews_keep_a_memory_while_unreviewed_ones_fade_in_importance_order(
    mem: Memory, clock: ManualClock
) -> None:
    threshold = mem.decay.recall_threshold
    kept = mem.remember("The wifi password at the office is on the fridge", user_id="ana", importance=0.5)
    weak = {
        imp: mem.remember(f"passing remark number {i}", user_id="ana", importance=imp)
        for i, imp in enumerate((0.4, 0.1, 0.3, 0.2))
    }
    faded_on: dict[float, int] = {}
    lowest = 1.0
    for day in range(1, 366):
        clock.advance(days=1)
        lowest = min(lowest, mem.strength(kept.id))
        if day in REVIEW_DAYS:
            mem.review(kept.id)
        report = mem.sweep()
        faded_now = {s for st in report.steps if st.action == "fade" for s in st.ids}
        for imp, rec in weak.items():
            if rec.id in faded_now:
                faded_on[imp] = day
    # the reviewed memory never dropped under the recall threshold and is still recalled
    assert lowest >= threshold
    assert mem.get(kept.id).status == Status.ACTIVE
    assert kept.id in [h.memory.id for h in mem.recall("wifi password", user_id="ana")]
    # every unreviewed one faded, the least important first
    assert set(faded_on) == set(weak)
    order = sorted(faded_on, key=lambda imp: (faded_on[imp], imp))
    assert order == sorted(weak)
    assert faded_on[0.1] < faded_on[0.4]


def test_a_year_of_daily_sweeps_applies_each_policy_once(db_path: Path, clock: ManualClock) -> None:
    policy = SweepPolicy(
        expired_grace=timedelta(days=7),
        fade_action="purge",
        faded_grace=timedelta(days=30),
        evict=EvictionPolicy(threshold=0.01, unaccessed_days=30),
    )
    mem = Memory(db_path, clock=clock)
    cart = mem.remember("cart: 2 bananas, oat milk", user_id="bo", kind="episode", ttl="24h", importance=0.9)
    otp = mem.remember("one-time code 4711", user_id="bo", ttl="10m", importance=0.9)
    old_address = mem.remember("Lives at Elm Street 1", user_id="bo", key="address", importance=0.9)
    pinned = mem.remember("Allergic to penicillin", user_id="bo", pinned=True, importance=0.1)
    chatter = mem.remember("said the weather was nice", user_id="bo", kind="episode", importance=0.1)
    used = mem.remember("Prefers window seats", user_id="bo", kind="preference", importance=0.6)
    # a fact that nobody uses after the first weeks: it fades, is kept as faded, then evicted or purged
    idle = mem.remember("Has a cousin in Leeds", user_id="bo", importance=0.2)

    seen: dict[str, dict[str, int]] = {}
    new_address = None
    for day in range(1, 366):
        clock.advance(days=1)
        if day == 100:
            new_address = mem.remember("Lives at Oak Road 9", user_id="bo", key="address", importance=0.9)
        if day % 7 == 0:
            mem.recall("window seats", user_id="bo")
        if day % 10 == 0:
            mem.recall("where does bo live", user_id="bo", keys=["address"])
        report = mem.sweep(policy=policy)
        assert report.skipped is None
        for step in report.steps:
            for mid in step.ids:
                seen.setdefault(mid, {}).setdefault(step.action, day)

    # TTL: expired on the first sweep after its time, purged after the 7-day grace
    assert seen[cart.id]["expire"] == 1 and seen[cart.id]["purge_expired"] == 8
    assert seen[otp.id]["expire"] == 1 and seen[otp.id]["purge_expired"] == 8
    # fading: the chatter fades within days and goes once the 30-day grace has passed
    assert seen[chatter.id]["fade"] <= 3
    gone_by = [a for a in ("purge_faded", "evict") if a in seen[chatter.id]]
    assert gone_by, seen[chatter.id]
    assert seen[idle.id]["fade"] < 60
    # supersession: the old address is history, not recalled, still queryable
    assert new_address is not None
    history = mem.history("address", user_id="bo")
    assert [r.status for r in history] == [Status.SUPERSEDED, Status.ACTIVE]
    assert history[0].id == old_address.id and history[0].superseded_by == new_address.id
    # pinned: never faded, never evicted; the weekly-used preference is still active
    assert pinned.id not in seen
    assert mem.get(pinned.id).status == Status.ACTIVE
    assert mem.get(used.id).status == Status.ACTIVE
    # every step happened once per memory: no memory is audited twice for the same action
    log = mem.audit_log()
    for action in ("expire", "purge_expired", "fade", "purge_faded", "evict"):
        ids = [i for e in log if e.action == action for i in e.memory_ids]
        assert len(ids) == len(set(ids)), action
    assert {"expire", "purge_expired", "fade", "supersede"} <= {e.action for e in log}
    assert mem.verify_audit().ok
    mem.close()


def test_faded_memories_are_kept_hidden_by_default_and_revived_by_review(
    mem: Memory, clock: ManualClock
) -> None:
    r = mem.remember("mentioned a podcast once", user_id="cy", kind="episode", importance=0.2)
    clock.advance(days=20)
    report = mem.sweep(policy=SweepPolicy(evict=None))
    assert r.id in [i for s in report.steps if s.action == "fade" for i in s.ids]
    clock.advance(days=200)
    mem.sweep(policy=SweepPolicy(evict=None))
    assert mem.get(r.id).status == Status.FADED  # kept (fade_action="keep"), not recalled
    assert mem.recall("podcast", user_id="cy").hits == []
    revived = mem.review(r.id)
    assert revived.status == Status.ACTIVE
    assert (revived.last_accessed_at or START) > START
