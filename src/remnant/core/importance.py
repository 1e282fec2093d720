"""The importance score that decides eviction (seed 001, section 3.3), as a pure function.

``score = reliability × (recency + ln(1 + frequency)) × (1 + mark_weight × importance) × decay^age``

- *reliability* is the memory's ``confidence`` (how far its source is trusted);
- *recency* is ``1 / (days since last access + 1)``;
- *frequency* is ``access_count`` (recalls and reviews both count);
- *importance* is the user's mark (0..1, set on write); pinned memories score ``inf`` (exempt);
- *age* is days since the memory was created, decayed by ``decay_per_day``.

The stores compute the same expression in SQL (see ``SQLiteStore.importance_scan``); a test checks
they agree, so this function is the specification.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from remnant.core.errors import ValidationError
from remnant.core.model import MemoryRecord

SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class ImportanceWeights:
    """Tuning of the score. ``decay_per_day`` 0.99 halves it every ~69 days of age; ``mark_weight`` 4
    makes a memory marked fully important worth five times an unmarked one."""

    decay_per_day: float = 0.99
    mark_weight: float = 4.0

    def __post_init__(self) -> None:
        if not 0.0 < self.decay_per_day <= 1.0:
            raise ValidationError(f"decay_per_day must be in (0, 1], got {self.decay_per_day}")
        if self.mark_weight < 0:
            raise ValidationError(f"mark_weight must not be negative, got {self.mark_weight}")


def importance_score_raw(
    *,
    now: float,
    created_at: float,
    last_accessed_at: float | None,
    access_count: int,
    confidence: float,
    importance: float,
    pinned: bool,
    weights: ImportanceWeights = ImportanceWeights(),
) -> float:
    """The score from plain numbers (epoch seconds); what the SQL implementations mirror."""
    if pinned:
        return math.inf
    age_days = max(0.0, (now - created_at) / SECONDS_PER_DAY)
    idle_days = max(
        0.0, (now - (last_accessed_at if last_accessed_at is not None else created_at)) / SECONDS_PER_DAY
    )
    recency = 1.0 / (idle_days + 1.0)
    frequency = math.log(1.0 + max(0, access_count))
    boost = 1.0 + weights.mark_weight * importance
    return confidence * (recency + frequency) * boost * math.exp(math.log(weights.decay_per_day) * age_days)


def importance_score(
    record: MemoryRecord, now: datetime, weights: ImportanceWeights = ImportanceWeights()
) -> float:
    """How much a memory is worth keeping now (higher is better; ``inf`` when pinned)."""
    if record.created_at is None:
        raise ValidationError(f"memory {record.id} has no created_at")
    return importance_score_raw(
        now=now.timestamp(),
        created_at=record.created_at.timestamp(),
        last_accessed_at=record.last_accessed_at.timestamp() if record.last_accessed_at else None,
        access_count=record.access_count,
        confidence=record.confidence,
        importance=record.importance,
        pinned=record.pinned,
        weights=weights,
    )
