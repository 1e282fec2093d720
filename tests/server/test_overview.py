"""The overview's counts on the engine directly: tenant = sum of users, in both clock modes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from remnant.core.clock import ManualClock
from remnant.core.decay import DecayConfig
from remnant.engine import Memory
from remnant.engine.forgetting.sweep import SweepPolicy
from remnant.server import overview as ov

T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize("mode", ["wall", "active_days"])
def test_tenant_is_the_sum_of_its_users(tmp_path, mode) -> None:
    clock = ManualClock(T0)
    mem = Memory(tmp_path / "o.db", clock=clock, decay=DecayConfig(clock_mode=mode))
    for day in range(6):
        for user in ("ana", "bob"):
            mem.remember(f"{user} note {day}", user_id=user, kind="episode", importance=0.1 + 0.1 * day)
        if day % 2:
            mem.recall("note", user_id="ana")  # ana is active on odd days (the active-days axis)
        clock.advance(days=1)
    mem.remember("keyed", user_id="bob", key="k")
    mem.remember("keyed again", user_id="bob", key="k")
    mem.sweep()
    tenant = ov.scope_of(mem, None)
    assert tenant.users == ([None] if mode == "wall" else ["ana", "bob"])
    every = ov.status_history(mem, tenant, days=6, points=4, fading_days=2)
    per_user = [
        ov.status_history(mem, ov.scope_of(mem, u), days=6, points=4, fading_days=2) for u in ("ana", "bob")
    ]
    for total, a, b in zip(every, *per_user, strict=True):
        assert total == a + b
    now = every[-1]
    assert now.superseded == 1 and sum(getattr(now, c) for c in ov.CATEGORIES) == mem.stats()["total"]
    assert now.faded >= 1  # the weakest episodes faded and were swept
    curve = ov.retention(mem, tenant, days=30, points=7)
    assert curve[0].remembered == sum(mem.stats(u)["remembered_now"] for u in ("ana", "bob"))
    assert [p.remembered for p in curve] == sorted((p.remembered for p in curve), reverse=True)
    assert ov.half_life(curve) is None or 0 < ov.half_life(curve) <= 30  # type: ignore[operator]


def test_half_life_interpolates() -> None:
    pts = [ov.RetentionPoint(0, 10, 1.0), ov.RetentionPoint(10, 6, 0.6), ov.RetentionPoint(20, 2, 0.2)]
    assert ov.half_life(pts) == pytest.approx(12.5)
    assert ov.half_life(pts[:2]) is None


def test_status_at_reads_past_moments(tmp_path) -> None:
    clock = ManualClock(T0)
    mem = Memory(tmp_path / "p.db", clock=clock)
    code = mem.remember("locker 4471", user_id="ana", ttl="1d")
    clock.advance(days=2)
    mem.sweep(
        policy=SweepPolicy(expired_grace=timedelta(days=7))
    )  # expired (kept a week), status changed now
    scope = ov.scope_of(mem, "ana")
    assert ov.status_at(mem, "ana", T0 + timedelta(hours=12), fading_days=7).active == 1
    later = ov.status_at(mem, "ana", T0 + timedelta(hours=36), fading_days=7)
    assert later.expired == 1 and later.active == 0  # expired before the sweep said so
    assert ov.status_history(mem, scope, days=2, points=2, fading_days=7)[-1].expired == 1
    assert mem.get(code.id).status.value == "expired"
