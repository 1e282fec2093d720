"""Sampling weights that fade with age: w = 0.5^(age / half_life) * authority^a * importance^b.

The seed's rule of thumb is that a training example's value halves every six months, so the
default half-life is 182.625 days (half of a mean Gregorian-ish 365.25-day year).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from remnant.training.clock import ensure_utc

DEFAULT_HALF_LIFE_DAYS = 182.625
SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class WeightPolicy:
    """How an example's sampling weight is computed.

    ``authority_exponent`` and ``importance_exponent`` are 0 by default (pure age decay); set
    them to 1 to scale linearly with trust or importance, higher to favour them more strongly.
    ``min_weight`` drops examples that have faded below it (they are, in effect, forgotten).
    ``superseded_factor`` multiplies the weight of examples marked superseded (a conflict
    resolution found a newer authoritative value); 0 by default, so they are never drawn.
    """

    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    authority_exponent: float = 0.0
    importance_exponent: float = 0.0
    min_weight: float = 0.0
    superseded_factor: float = 0.0

    def __post_init__(self) -> None:
        if not (self.half_life_days > 0 and math.isfinite(self.half_life_days)):
            raise ValueError(f"half-life must be a positive number of days, got {self.half_life_days}")
        if self.authority_exponent < 0 or self.importance_exponent < 0:
            raise ValueError("authority and importance exponents must be >= 0")
        if not 0.0 <= self.min_weight < 1.0:
            raise ValueError("min_weight must be in [0, 1)")
        if not 0.0 <= self.superseded_factor <= 1.0:
            raise ValueError("superseded_factor must be in [0, 1]")


def age_days(created_at: datetime, now: datetime) -> float:
    """Age in days, clamped at 0 so future-dated examples count as brand new."""
    return max(0.0, (ensure_utc(now) - ensure_utc(created_at)).total_seconds() / SECONDS_PER_DAY)


def decay_factor(age: npt.ArrayLike, half_life_days: float) -> npt.NDArray[np.float64]:
    """0.5 ** (age / half_life), element-wise; age in days, negatives treated as 0."""
    ages = np.maximum(np.asarray(age, dtype=np.float64), 0.0)
    return np.power(0.5, ages / half_life_days)


def weights(
    ages: npt.ArrayLike,
    authority: npt.ArrayLike,
    importance: npt.ArrayLike,
    policy: WeightPolicy,
    superseded: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """Vectorised sampling weights for arrays of ages (days), authorities, importances and
    (optionally) superseded flags."""
    w = decay_factor(ages, policy.half_life_days)
    if superseded is not None:
        w = np.where(np.asarray(superseded, dtype=bool), w * policy.superseded_factor, w)
    if policy.authority_exponent:
        w = w * np.power(np.asarray(authority, dtype=np.float64), policy.authority_exponent)
    if policy.importance_exponent:
        w = w * np.power(np.asarray(importance, dtype=np.float64), policy.importance_exponent)
    if policy.min_weight:
        w = np.where(w < policy.min_weight, 0.0, w)
    return w
