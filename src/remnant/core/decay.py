"""The decay model: pure functions of time, no I/O.

Strength follows the Ebbinghaus forgetting curve ``R(t) = s0 · exp(-t / S)``, where ``t`` is the
time on the decay axis since the last reinforcement and ``S`` the stability in days. Each recall or
review re-anchors the curve at the current strength plus a boost and multiplies the stability; a
reinforcement that comes when the memory is weaker (a better-spaced review) grows stability more,
which is the spacing effect. The seed's ``s0 · rate^days`` curve is the ``exponential`` option: a
fixed stability ``S = -1 / ln(rate)`` and a strength boost on review.

Because the curve is closed-form, the moment a memory crosses the recall threshold is known in
advance (:func:`fade_at`); the store indexes it, so "still remembered" is a range query.

The *decay axis* is measured in days. In ``wall`` mode it is wall-clock days since the Unix epoch;
in ``active_days`` mode it is the number of days on which the user was active, so a holiday does
not erase memories.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from remnant.core.errors import ValidationError
from remnant.core.model import Kind

SECONDS_PER_DAY = 86_400.0
NEVER = math.inf

Curve = Literal["ebbinghaus", "exponential"]
ClockMode = Literal["wall", "active_days"]
Reinforcement = Literal["review", "use", "recall", "repeat"]

_DEFAULT_BASE_STABILITY: Mapping[str, float] = MappingProxyType(
    {
        # Measured with `remnant eval` (retention suite): with facts at 14 days an unused fact of
        # importance 0.5 faded in under two weeks, before a monthly use could reinforce it.
        Kind.EPISODE.value: 3.0,  # a conversation turn is gone in days unless it is used
        Kind.OPEN_ISSUE.value: 14.0,
        Kind.FACT.value: 90.0,
        Kind.PREFERENCE.value: 120.0,
        Kind.SUMMARY.value: 60.0,
        Kind.KNOWLEDGE.value: 365.0,  # product knowledge leaves by validity windows, not by fading
    }
)


@dataclass(frozen=True)
class DecayConfig:
    """How fast memories fade and how much using them helps.

    ``recall_threshold`` is the seed's 52 %: a memory whose strength is under it is *faded*.
    Initial strength is the seed's ``min(1, 0.5 + 0.5 · importance)``; initial stability is the
    kind's base stability times ``1 + importance_stability_factor · importance``.
    """

    curve: Curve = "ebbinghaus"
    recall_threshold: float = 0.52
    daily_rate: float = 0.98  # exponential curve only: strength kept per day
    base_stability_days: Mapping[str, float] = field(default_factory=lambda: _DEFAULT_BASE_STABILITY)
    importance_stability_factor: float = 3.0
    review_boost: float = 0.3  # the seed's "+0.3" on review
    review_gain: float = 2.0  # stability multiplier grows by up to this much for a well-spaced review
    # what the application used (packed into a prompt, reported with Memory.used): between the two
    use_boost: float = 0.2
    use_gain: float = 1.0
    recall_boost: float = 0.1  # being recalled is a weaker reinforcement than an explicit review
    recall_gain: float = 0.5
    # the user said it again (a duplicate write, engine/ledger.py): a review (review_boost,
    # review_gain) whose stability gain is at least this much, because a repeat right after the
    # first mention, when a review would add nothing (R ≈ 1), is still evidence that it matters
    repeat_min_gain: float = 0.5
    max_stability_days: float = 3650.0
    clock_mode: ClockMode = "wall"

    def __post_init__(self) -> None:
        if self.curve not in ("ebbinghaus", "exponential"):
            raise ValidationError(
                f"unknown decay curve {self.curve!r}; expected 'ebbinghaus' or 'exponential'"
            )
        if self.clock_mode not in ("wall", "active_days"):
            raise ValidationError(f"unknown clock mode {self.clock_mode!r}; expected 'wall' or 'active_days'")
        if not 0.0 < self.recall_threshold < 1.0:
            raise ValidationError(f"recall_threshold must be in (0, 1), got {self.recall_threshold}")
        if not 0.0 < self.daily_rate < 1.0:
            raise ValidationError(f"daily_rate must be in (0, 1), got {self.daily_rate}")
        for name in (
            "review_boost",
            "review_gain",
            "use_boost",
            "use_gain",
            "recall_boost",
            "recall_gain",
            "repeat_min_gain",
            "importance_stability_factor",
        ):
            if getattr(self, name) < 0:
                raise ValidationError(f"{name} must not be negative")
        for kind, days in self.base_stability_days.items():
            if days <= 0:
                raise ValidationError(f"base stability for {kind!r} must be positive, got {days}")
        if self.max_stability_days <= 0:
            raise ValidationError("max_stability_days must be positive")


@dataclass(frozen=True, slots=True)
class DecayState:
    """Where a memory's curve is anchored: strength ``strength0`` at axis day ``anchor``."""

    strength0: float
    stability: float
    anchor: float
    pinned: bool = False


def initial_strength(importance: float) -> float:
    """The seed's rule: importance 0 starts at 0.5, importance 1 at full strength."""
    return min(1.0, 0.5 + 0.5 * importance)


def initial_stability(kind: Kind | str, importance: float, config: DecayConfig) -> float:
    if config.curve == "exponential":
        return -1.0 / math.log(config.daily_rate)
    base = config.base_stability_days.get(str(kind), _DEFAULT_BASE_STABILITY.get(str(kind), 14.0))
    return min(config.max_stability_days, base * (1.0 + config.importance_stability_factor * importance))


def importance_lasting(days: float, kind: Kind | str, config: DecayConfig) -> float:
    """The least importance at which a new memory of ``kind`` stays above the recall threshold for
    ``days`` (1.0 when no importance does): under it a memory would be faded within that time."""

    def lasts(importance: float) -> float:
        return fade_at(new_state(kind, importance, 0.0, config), config)

    if lasts(0.0) >= days:
        return 0.0
    if lasts(1.0) < days:
        return 1.0
    low, high = 0.0, 1.0  # fade time grows with importance (both s0 and stability do)
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if lasts(mid) < days else (low, mid)
    return min(1.0, math.ceil(high * 1000) / 1000)  # a round figure at or above the bound


def new_state(
    kind: Kind | str, importance: float, axis_now: float, config: DecayConfig, *, pinned: bool = False
) -> DecayState:
    return DecayState(
        initial_strength(importance), initial_stability(kind, importance, config), axis_now, pinned
    )


def strength_at(state: DecayState, axis_now: float) -> float:
    """Strength on the decay axis; never rises with time, pinned memories stay at full strength."""
    if state.pinned:
        return 1.0
    elapsed = max(0.0, axis_now - state.anchor)
    return state.strength0 * math.exp(-elapsed / state.stability)


def fade_at(state: DecayState, config: DecayConfig) -> float:
    """Axis day at which strength crosses the recall threshold (``inf`` for pinned memories)."""
    if state.pinned:
        return NEVER
    if state.strength0 <= config.recall_threshold:
        return state.anchor
    return state.anchor + state.stability * math.log(state.strength0 / config.recall_threshold)


def is_remembered(state: DecayState, axis_now: float, config: DecayConfig) -> bool:
    return state.pinned or strength_at(state, axis_now) >= config.recall_threshold


def reinforce(
    state: DecayState, axis_now: float, config: DecayConfig, how: Reinforcement = "review"
) -> DecayState:
    """Re-anchor the curve after a review, a use or a recall.

    Strength rises by the boost (never falls); stability is multiplied by ``1 + gain · (1 - R)``, so
    a review that comes when the memory is weak (well spaced) helps more than one right after
    learning. Neither strength nor stability ever decreases.
    """
    if state.pinned:
        return state
    boost, gain = {
        "review": (config.review_boost, config.review_gain),
        "use": (config.use_boost, config.use_gain),
        "recall": (config.recall_boost, config.recall_gain),
        "repeat": (config.review_boost, config.review_gain),
    }[how]
    current = strength_at(state, axis_now)
    strength0 = min(1.0, current + boost)
    strength0 = max(strength0, current)
    if config.curve == "exponential":
        stability = state.stability
    else:
        growth = gain * (1.0 - current)
        if how == "repeat":
            growth = max(growth, config.repeat_min_gain)
        grown = state.stability * (1.0 + growth)
        stability = max(state.stability, min(config.max_stability_days, grown))
    return DecayState(strength0, stability, max(axis_now, state.anchor), False)


def curve(state: DecayState, start: float, end: float, points: int = 60) -> list[tuple[float, float]]:
    """Sample (axis day, strength) pairs between ``start`` and ``end`` for plots."""
    if points < 2 or end <= start:
        return [(start, strength_at(state, start))]
    step = (end - start) / (points - 1)
    return [(start + i * step, strength_at(state, start + i * step)) for i in range(points)]


def wall_axis(epoch_seconds: float) -> float:
    """The wall-mode decay axis: days since the Unix epoch."""
    return epoch_seconds / SECONDS_PER_DAY
