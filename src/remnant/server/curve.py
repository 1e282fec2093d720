"""A memory's decay curve for the inspector: where its strength has been and where it is going.

The store keeps only the current decay state (strength ``strength0`` at axis day ``anchor`` with its
stability), which is all recall needs. The past is rebuilt from what is known for certain: the
curve the memory started on (from its kind and importance, the same rule the engine used), until its
last reinforcement; then the current curve. Reinforcements between the first and the last are
counted but not dated (the engine does not keep a per-event history), and the response says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from remnant.core import decay as dk
from remnant.core.model import MemoryRecord
from remnant.engine.memory import Memory


@dataclass(frozen=True)
class CurvePoint:
    day: float  # days relative to now (negative = past)
    strength: float

    def to_dict(self) -> dict[str, float]:
        return {"day": round(self.day, 4), "strength": round(self.strength, 5)}


def decay_curve(
    mem: Memory, record: MemoryRecord, *, days_ahead: float | None = None, points: int = 60
) -> dict[str, Any]:
    """Past and projected strength, events (created, reinforced, reviews) and the recall threshold.

    Without ``days_ahead`` the projection reaches a little past the day the memory fades (30 days for
    one that never fades, a year at most), so the crossing is always on the chart.
    """
    now = mem.now()
    axis_now = mem.axis(record.user_id, now)
    created = record.created_at or now
    axis_created = min(mem.axis(record.user_id, created), axis_now)
    current = dk.DecayState(record.strength0, record.stability, record.anchor, record.pinned)
    initial = dk.new_state(record.kind, record.importance, axis_created, mem.decay)
    reinforcements = record.access_count
    anchor = min(max(record.anchor, axis_created), axis_now)
    # the curve was re-anchored after creation: by a review or recall, a pin or an unpin
    reanchored = anchor > axis_created + 1e-9

    past: list[CurvePoint] = []
    span = axis_now - axis_created
    n_past = max(2, points // 2)
    if span > 0:
        xs = sorted({axis_created + span * i / (n_past - 1) for i in range(n_past)} | {anchor})
        for x in xs:
            if reanchored and x < anchor:
                past.append(CurvePoint(x - axis_now, dk.strength_at(initial, x)))
            elif reanchored and x == anchor:
                # the jump: the end of the old curve, then the new start
                past.append(CurvePoint(x - axis_now, dk.strength_at(initial, x)))
                past.append(CurvePoint(x - axis_now, dk.strength_at(current, x)))
            else:
                past.append(CurvePoint(x - axis_now, dk.strength_at(current, x)))
    else:
        past = [CurvePoint(0.0, dk.strength_at(current, axis_now))]

    if days_ahead is None:
        to_fade = record.fade_at - axis_now
        days_ahead = 30.0 if math.isinf(to_fade) or to_fade <= 0 else min(365.0, max(14.0, to_fade * 1.3))
    projected = [
        CurvePoint(x - axis_now, s)
        for x, s in dk.curve(current, axis_now, axis_now + max(days_ahead, 0.1), max(2, points))
    ]
    events: list[dict[str, Any]] = [
        {"type": "created", "day": round(axis_created - axis_now, 4), "at": created.isoformat()}
    ]
    if reanchored:
        if record.pinned:
            kind, label = "pinned", "pinned"
        elif record.review_count:
            kind, label = "review", "last reinforcement"
        elif reinforcements:
            kind, label = "recall", "last reinforcement"
        else:
            kind, label = "reanchored", "unpinned"
        at = record.last_accessed_at.isoformat() if record.last_accessed_at and kind != "pinned" else None
        events.append({"type": kind, "day": round(anchor - axis_now, 4), "at": at, "label": label})
    fade_day = None if math.isinf(record.fade_at) else round(record.fade_at - axis_now, 4)
    return {
        "id": record.id,
        "user_id": record.user_id,
        "kind": record.kind.value,
        "status": record.status.value,
        "pinned": record.pinned,
        "axis": mem.decay.clock_mode,
        "now": now.isoformat(),
        "strength": round(dk.strength_at(current, axis_now), 5),
        "stability_days": round(record.stability, 4),
        "threshold": mem.decay.recall_threshold,
        "fade_in_days": fade_day,
        "access_count": record.access_count,
        "review_count": record.review_count,
        "past": [p.to_dict() for p in past],
        "projected": [p.to_dict() for p in projected],
        "events": events,
        "note": (
            "earlier reinforcements are counted, not dated: the past shows the first curve and the last change"
            if reanchored and (reinforcements > 1 or (record.pinned and reinforcements))
            else None
        ),
    }
