"""The supersession pair model: its cues, its fit, its weights file, the policy's use of it and the
product switch (``REMNANT_ATTRIBUTES=pairs``). The pairs here are written for this test, not taken
from any data file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.core.model import Status
from remnant.embed.base import EmbedderUnavailable
from remnant.embed.registry import get_embedder
from remnant.engine.forgetting.attributes import cues
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.engine.forgetting.pair_model import (
    BLOCKS,
    FEATURES,
    PairJudge,
    PairWeights,
    fit_logistic,
    weights_path,
)
from remnant.engine.memory import Memory


def test_cues_in_english_and_chinese() -> None:
    assert cues("I handed in my notice and left Tailspin").ended
    assert cues("我上个月辞职了").ended
    assert cues("these days I cycle to the office").changed
    assert cues("我现在改喝茶了").changed
    assert cues("I also teach piano on Saturdays").additive and cues("我也在学日语").additive
    assert cues("this week I'm working from the Lisbon office").temporary
    assert cues("这几天在外地出差").temporary
    assert cues("my brother moved to Quito").subject == "brother"
    assert cues("Priya moved to Quito").named_subject
    assert not cues("Moved to Quito in June").named_subject
    assert cues("if I ever moved to Quito").hypothetical


def test_logistic_fit_and_weights_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    dim = len(FEATURES) + 3 * len(BLOCKS)
    x = rng.normal(size=(400, dim))
    y = x[:, 0] + 0.5 * x[:, 3] > 0
    mean, scale, w, b = fit_logistic(x, y, l2=1.0)
    model = PairWeights("toy", FEATURES, mean, scale, w, b, 0.8, 0.5, {})
    p = model.probability(x)
    assert ((p >= 0.5) == y).mean() > 0.95
    again = PairWeights.from_json(json.loads(json.dumps(model.to_json())))
    assert np.allclose(again.probability(x[:5]), p[:5], atol=1e-4)
    stale = model.to_json() | {"features": ["cos"]}
    with pytest.raises(ValueError, match="other features"):
        PairWeights.from_json(stale)


def test_without_weights_the_judge_answers_nothing_and_the_rules_decide() -> None:
    judge = PairJudge(get_embedder("static"), embedder_name="no-such-model")
    assert judge.weights is None
    assert judge.decide("Bristol is home now", "I live in Leeds") == (None, "no pair model")
    policy = ContradictionPolicy(pairs=judge)
    action, verdict = policy.decide("we moved to Bristol", "I live in Leeds")  # the rules read both
    assert action == "supersede" and "city" in verdict.reason


def test_the_product_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from remnant.config import build_contradictions

    monkeypatch.setenv("REMNANT_ATTRIBUTES", "pairs")
    assert isinstance(build_contradictions().pairs, PairJudge)
    monkeypatch.setenv("REMNANT_ATTRIBUTES", "rules")
    policy = build_contradictions()
    assert policy.pairs is None and policy.classifier is None
    monkeypatch.setenv("REMNANT_ATTRIBUTES", "sometimes")
    with pytest.raises(ValidationError, match="REMNANT_ATTRIBUTES"):
        build_contradictions()


@pytest.fixture(scope="module")
def judge() -> PairJudge:
    try:
        embedder = get_embedder("e5-small", threads=1)
    except EmbedderUnavailable as exc:
        pytest.skip(f"e5-small not installed: {exc}")
    if not weights_path(embedder.model_id).exists():
        pytest.skip("no supersession weights for e5-small")
    return PairJudge(threads=1)


# (old, new): changes said without the old value, with change words, as an ending, by implication
CHANGES = [
    ("I take the bus to the office", "bought a car, so I drive in every day now"),
    ("I work at the library on Elm Street", "handed in my notice at the library, Friday was my last day"),
    ("我在一家外贸公司上班", "我从外贸公司辞职了，下周去新单位报到"),
    ("我每天早上喝咖啡", "咖啡戒了，现在早上只喝热水"),
]
# another person's attribute, an addition, a temporary exception, the same value again
KEEPS = [
    ("I take the bus to the office", "my husband drives to his office"),
    ("I work at the library on Elm Street", "I also tutor kids on weekends"),
    ("我在一家外贸公司上班", "我老公在银行上班"),
    ("我每天早上喝咖啡", "我每天早上喝咖啡"),
]


def test_the_judge_ranks_changes_above_compatible_pairs(judge: PairJudge) -> None:
    changed = [judge.probability(new, old) for old, new in CHANGES]
    kept = [judge.probability(new, old) for old, new in KEEPS]
    assert all(p is not None for p in changed + kept)
    assert float(np.mean(changed)) > float(np.mean(kept))  # type: ignore[arg-type]
    for old, new in KEEPS:
        assert judge.decide(new, old)[0] != "supersede", (old, new)


def test_through_the_engine_a_change_without_shared_words(
    judge: PairJudge, db_path: Path, clock: ManualClock
) -> None:
    # lexical recall: no vectors to search, the policy hands the pair model the user's latest facts
    mem = Memory(db_path, clock=clock, contradictions=ContradictionPolicy(pairs=judge))
    try:
        outcomes = {}
        for i, (old, new) in enumerate(CHANGES + KEEPS):
            user = f"u{i}"
            first = mem.remember(old, user_id=user)
            clock.advance(days=1)
            mem.remember(new, user_id=user)
            outcomes[(old, new)] = mem.get(first.id).status
        for pair in KEEPS:
            assert outcomes[pair] == Status.ACTIVE, pair
        # the pair model supersedes only what it is sure of (it flags the rest): at least one goes
        assert any(outcomes[pair] == Status.SUPERSEDED for pair in CHANGES)
    finally:
        mem.close()


def test_one_supersession_on_the_models_word_per_write() -> None:
    from remnant.core.model import MemoryRecord
    from remnant.engine.forgetting.contradictions import PairVerdict, one_model_supersession

    def rec(i: str) -> MemoryRecord:
        return MemoryRecord(id=i, user_id="u", content=f"fact {i}")

    found = [
        (rec("a"), PairVerdict("contradiction", 0.93, "pair model p=0.93"), "supersede"),
        (rec("b"), PairVerdict("contradiction", 0.97, "pair model p=0.97"), "supersede"),
        (rec("c"), PairVerdict("contradiction", 1.0, "same city, a new value"), "supersede"),
    ]
    out = {old.id: action for old, _, action in one_model_supersession(found)}  # type: ignore[arg-type]
    assert out == {"a": "flag", "b": "supersede", "c": "supersede"}  # the rules' own stands
