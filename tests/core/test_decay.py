"""Property tests of the decay model: pure functions, so hypothesis can hammer them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remnant.core import decay as dk
from remnant.core.decay import DecayConfig, DecayState
from remnant.core.errors import ValidationError
from remnant.core.model import Kind

CONFIGS = [
    DecayConfig(),
    DecayConfig(curve="exponential", daily_rate=0.95),
    DecayConfig(recall_threshold=0.3),
]
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
days = st.floats(min_value=0.0, max_value=3650.0, allow_nan=False)
kinds = st.sampled_from(list(Kind))
configs = st.sampled_from(CONFIGS)


@st.composite
def states(draw: st.DrawFn) -> tuple[DecayState, DecayConfig]:
    cfg = draw(configs)
    state = dk.new_state(draw(kinds), draw(unit), draw(days), cfg)
    # walk through some reinforcements so states are not only fresh ones
    t = state.anchor
    for step in draw(st.lists(st.tuples(days, st.sampled_from(["review", "recall"])), max_size=4)):
        t += step[0]
        state = dk.reinforce(state, t, cfg, step[1])
    return state, cfg


@given(states(), days, days)
def test_strength_never_increases_without_access(
    sc: tuple[DecayState, DecayConfig], a: float, b: float
) -> None:
    state, _ = sc
    t1, t2 = sorted((state.anchor + a, state.anchor + b))
    assert dk.strength_at(state, t2) <= dk.strength_at(state, t1) + 1e-12


@given(states(), days, st.sampled_from(["review", "recall"]))
def test_reinforcement_never_lowers_strength_or_stability(
    sc: tuple[DecayState, DecayConfig], wait: float, how: dk.Reinforcement
) -> None:
    state, cfg = sc
    t = state.anchor + wait
    after = dk.reinforce(state, t, cfg, how)
    assert after.stability >= state.stability
    assert dk.strength_at(after, t) >= dk.strength_at(state, t) - 1e-12
    # and the whole future curve sits at or above the old one
    for later in (t + 1, t + 10, t + 100):
        assert dk.strength_at(after, later) >= dk.strength_at(state, later) - 1e-12


@given(kinds, unit, days, days)
def test_pinned_memories_stay_at_full_strength(
    kind: Kind, importance: float, start: float, wait: float
) -> None:
    state = dk.new_state(kind, importance, start, DecayConfig(), pinned=True)
    assert dk.strength_at(state, start + wait) == 1.0
    assert dk.fade_at(state, DecayConfig()) == math.inf
    assert dk.reinforce(state, start + wait, DecayConfig()) == state


@settings(max_examples=300)
@given(states())
def test_stored_fade_time_agrees_with_curve_within_a_second(sc: tuple[DecayState, DecayConfig]) -> None:
    state, cfg = sc
    fade = dk.fade_at(state, cfg)
    second = 1 / dk.SECONDS_PER_DAY
    if fade == state.anchor:  # started at or under the threshold
        assert dk.strength_at(state, fade) <= cfg.recall_threshold + 1e-12
        return
    assert dk.strength_at(state, fade - second) >= cfg.recall_threshold
    assert dk.strength_at(state, fade + second) < cfg.recall_threshold
    assert abs(dk.strength_at(state, fade) - cfg.recall_threshold) < 1e-9


def test_seed_initial_strength() -> None:
    assert dk.initial_strength(0.0) == 0.5
    assert dk.initial_strength(0.5) == 0.75
    assert dk.initial_strength(1.0) == 1.0


def test_exponential_curve_is_the_seeds_rate_per_day() -> None:
    cfg = DecayConfig(curve="exponential", daily_rate=0.98)
    state = dk.new_state(Kind.FACT, 1.0, 0.0, cfg)
    assert dk.strength_at(state, 10) == pytest.approx(0.98**10)
    reviewed = dk.reinforce(state, 10, cfg)
    assert reviewed.stability == state.stability
    assert dk.strength_at(reviewed, 10) == pytest.approx(min(1.0, 0.98**10 + 0.3))


def test_well_spaced_reviews_grow_stability_more() -> None:
    cfg = DecayConfig()
    state = dk.new_state(Kind.FACT, 0.5, 0.0, cfg)
    early = dk.reinforce(state, 0.1, cfg)
    late = dk.reinforce(state, 5.0, cfg)
    assert late.stability > early.stability


def test_importance_slows_decay() -> None:
    cfg = DecayConfig()
    low = dk.new_state(Kind.FACT, 0.2, 0.0, cfg)
    high = dk.new_state(Kind.FACT, 0.9, 0.0, cfg)
    assert dk.fade_at(high, cfg) > dk.fade_at(low, cfg)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"recall_threshold": 0.0},
        {"recall_threshold": 1.5},
        {"curve": "linear"},
        {"daily_rate": 1.0},
        {"review_gain": -1.0},
        {"clock_mode": "moon"},
        {"base_stability_days": {"fact": 0.0}},
    ],
)
def test_bad_config_is_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        DecayConfig(**kwargs)  # type: ignore[arg-type]
