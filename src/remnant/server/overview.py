"""The inspector's tenant overview: memories by status over time, and the retention curve.

Everything is counted by the store (:meth:`~remnant.store.base.Store.count_many` over
:class:`MemoryFilter`), never by loading memories: a SQL store makes all the counts of one user (or
of the tenant) in one pass over its rows.

**Status over time.** The store keeps each memory's current status and when it last changed, its
creation time, its fade time (the decay-axis day its strength crosses the recall threshold) and its
expiry. At a past moment ``t`` a memory created by then counts as

- ``hidden`` / ``superseded`` / ``expired`` / ``faded`` if it is in that status now and changed to it
  by ``t``;
- otherwise it was live at ``t``: ``expired`` if its expiry had passed, ``faded`` if its fade time
  had (its strength was under the threshold, swept or not yet), ``fading`` if it fades within
  ``fading_days`` after ``t``, else ``active``.

Reconstructed from the current state, so two things are approximate: a memory that changed status
twice (hidden, then restored) counts as live before its last change; and a memory reinforced after
``t`` is judged by its current curve, which lies above the one it was on at ``t``.

**Retention.** Of what is remembered now, the share still remembered after ``d`` days if nothing is
used again: a range count on the stored fade time (pinned memories never fade). In ``active_days``
clock mode the days are the user's active days.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import pairwise

from remnant.core import decay as dk
from remnant.core.model import Status
from remnant.engine.memory import Memory
from remnant.store.base import MemoryFilter

OFF = (Status.HIDDEN, Status.SUPERSEDED, Status.EXPIRED, Status.FADED)
CATEGORIES = ("active", "fading", "faded", "expired", "superseded", "hidden")
MAX_USERS = 50  # active-days mode counts per user (each has its own axis); beyond this, the first ones


@dataclass(frozen=True)
class StatusCounts:
    at: datetime
    active: int = 0
    fading: int = 0
    faded: int = 0
    expired: int = 0
    superseded: int = 0
    hidden: int = 0

    def __add__(self, other: StatusCounts) -> StatusCounts:
        return StatusCounts(self.at, *(getattr(self, c) + getattr(other, c) for c in CATEGORIES))


@dataclass(frozen=True)
class RetentionPoint:
    day: float
    remembered: int
    share: float


@dataclass(frozen=True)
class Scope:
    """The users counted: one user, the whole tenant on one wall-clock axis, or each user in turn."""

    users: list[str | None]
    truncated: bool


def scope_of(mem: Memory, user_id: str | None) -> Scope:
    if user_id is not None or mem.decay.clock_mode == "wall":
        return Scope([user_id], False)
    found = mem.users(limit=MAX_USERS + 1)
    return Scope([u.user_id for u in found[:MAX_USERS]], len(found) > MAX_USERS)


def _axis(mem: Memory, user_id: str | None, at: datetime) -> float:
    if mem.decay.clock_mode == "wall" or user_id is None:
        return dk.wall_axis(at.timestamp())
    return mem.axis(user_id, at)


def _sample_filters(mem: Memory, user_id: str | None, at: datetime, fading_days: float) -> list[MemoryFilter]:
    """The counts one sample needs, in the order :func:`_sample_counts` reads them."""
    ts = at.timestamp()
    # created_before is strict; a memory written at this very moment counts
    created = MemoryFilter(tenant=mem.tenant, user_id=user_id, statuses=None, created_before=ts + 1e-3)
    gone = replace(created, statuses=OFF, changed_before=ts)  # in a status it had reached by ``at``
    ax = _axis(mem, user_id, at)
    conditions = [
        {"expired_by": ts},
        {"faded_by": ax, "now": ts},  # ``now``: not expired at ``at`` (those count as expired)
        {"remembered_at": ax, "faded_by": ax + fading_days, "now": ts},
    ]
    out = [created, gone, *(replace(gone, statuses=(s,)) for s in OFF)]
    for cond in conditions:
        # live at ``at`` and meeting cond = all that meet it, less those gone by then
        out += [_with(created, **cond), _with(gone, **cond)]
    return out


def _with(
    f: MemoryFilter,
    *,
    expired_by: float | None = None,
    faded_by: float | None = None,
    remembered_at: float | None = None,
    now: float | None = None,
) -> MemoryFilter:
    return replace(f, expired_by=expired_by, faded_by=faded_by, remembered_at=remembered_at, now=now)


PER_SAMPLE = 2 + len(OFF) + 3 * 2


def _sample_counts(at: datetime, n: list[int]) -> StatusCounts:
    created, gone = n[0], n[1]
    hidden, superseded, expired_s, faded_s = n[2:6]
    expired, faded, fading = (n[6 + 2 * k] - n[7 + 2 * k] for k in range(3))
    return StatusCounts(
        at,
        active=created - gone - expired - faded - fading,
        fading=fading,
        faded=faded_s + faded,
        expired=expired_s + expired,
        superseded=superseded,
        hidden=hidden,
    )


def status_at(mem: Memory, user_id: str | None, at: datetime, *, fading_days: float) -> StatusCounts:
    """How the memories of ``user_id`` (None: the tenant) stood at ``at``; see the module docstring."""
    scope = MemoryFilter(tenant=mem.tenant, user_id=user_id, statuses=None)
    return _sample_counts(at, mem.store.count_many(scope, _sample_filters(mem, user_id, at, fading_days)))


def status_history(
    mem: Memory, scope: Scope, *, days: float, points: int, fading_days: float
) -> list[StatusCounts]:
    """``points`` samples from ``days`` ago to now, evenly spaced, the last one now: every count of
    one user (or of the tenant) in one pass of the store over it."""
    now = mem.now()
    step = days / max(points - 1, 1)
    times = [now - timedelta(days=days - i * step) if i < points - 1 else now for i in range(points)]
    out = [StatusCounts(at) for at in times]
    for user in scope.users:
        filters = [f for at in times for f in _sample_filters(mem, user, at, fading_days)]
        counts = mem.store.count_many(MemoryFilter(tenant=mem.tenant, user_id=user, statuses=None), filters)
        for i, at in enumerate(times):
            out[i] = out[i] + _sample_counts(at, counts[i * PER_SAMPLE : (i + 1) * PER_SAMPLE])
    return out


def retention(mem: Memory, scope: Scope, *, days: float, points: int) -> list[RetentionPoint]:
    """Of the memories remembered now, how many are still above the threshold ``d`` days on."""
    now = mem.now()
    ts = now.timestamp()
    counts = [0] * points
    step = days / max(points - 1, 1)
    for user in scope.users:
        ax = _axis(mem, user, now)
        base = MemoryFilter(tenant=mem.tenant, user_id=user, statuses=(Status.ACTIVE,))
        filters = [
            replace(base, remembered_at=ax + i * step, now=ts + i * step * 86_400) for i in range(points)
        ]
        for i, n in enumerate(mem.store.count_many(replace(base, statuses=None), filters)):
            counts[i] += n
    first = counts[0]
    return [
        RetentionPoint(round(i * step, 4), n, round(n / first, 6) if first else 0.0)
        for i, n in enumerate(counts)
    ]


def half_life(curve: list[RetentionPoint]) -> float | None:
    """The first day under half of what is remembered now (linear between samples), or None."""
    for a, b in pairwise(curve):
        if b.share < 0.5 <= a.share:
            if a.share == b.share:
                return b.day
            return round(a.day + (a.share - 0.5) / (a.share - b.share) * (b.day - a.day), 3)
    return None


def pinned_count(mem: Memory, scope: Scope) -> int:
    ts = mem.now().timestamp()
    return sum(
        mem.store.count(
            MemoryFilter(tenant=mem.tenant, user_id=u, statuses=(Status.ACTIVE,), pinned=True, now=ts)
        )
        for u in scope.users
    )
