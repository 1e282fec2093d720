"""The trained salience model: its generated training turns, the fit, the shipped weights, and the
ingestor's use of it (with the rules as the fallback when the embedder has no weights)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from remnant.config import build_ingestor
from remnant.core.errors import ValidationError
from remnant.embed.base import EmbedderUnavailable
from remnant.embed.registry import get_embedder
from remnant.engine.options import Message
from remnant.extract.ingest import RuleIngestor
from remnant.extract.salience import salience
from remnant.extract.salience_model import (
    DATA_DIR,
    SalienceModel,
    cross_validate,
    features,
    fit,
    load_model,
    predict,
)
from remnant.training.salience_data import FILLER, SALIENT, generate


def test_generated_turns_are_varied_labelled_and_deterministic() -> None:
    turns = generate(1500, seed=3)
    assert generate(1500, seed=3) == turns
    assert len({t.text for t in turns}) == len(turns) == 1500
    counts = Counter((t.lang, t.label) for t in turns)
    assert all(counts[(lang, label)] > 200 for lang in ("en", "zh") for label in (SALIENT, FILLER))
    categories = {t.category for t in turns}
    assert {"implicit", "change", "habit", "people", "hard", "meta", "greeting"} <= categories
    assert len({t.template for t in turns}) > 300


def test_fit_separates_and_cross_validation_reports_its_spread() -> None:
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.5).astype(float)
    x = rng.normal(size=(400, 5)) + y[:, None] * 1.5
    w, b = fit(x, y, l2=1.0)
    assert float(np.mean((predict(x, w, b) >= 0.5) == (y == 1))) > 0.9
    cv = cross_validate(x, y, np.zeros(400), [str(i % 40) for i in range(400)], k=4, l2=1.0)
    assert len(cv["fold_kept"]) == len(cv["fold_faded"]) == 4
    assert min(cv["kept"], cv["faded"]) > 0.85
    assert 0.05 <= cv["threshold"] <= 0.95


def test_importance_puts_the_threshold_on_the_consolidation_bar() -> None:
    model = SalienceModel("toy", np.zeros(3), rule_weight=1.0, bias=0.0, threshold=0.7, meta={})
    # rule score 0.7, zero vector: probability 0.7, exactly the threshold -> importance 0.5
    assert model.importance(np.zeros(3), 0.7) == pytest.approx(0.5)
    assert model.importance(np.zeros(3), 0.9) > 0.5 > model.importance(np.zeros(3), 0.4)
    with pytest.raises(ValueError, match="dimensions"):
        model.probability(np.zeros(4), 0.5)
    assert SalienceModel.from_json(json.loads(json.dumps(model.to_json()))).threshold == 0.7


def test_shipped_weights_load_and_describe_their_training() -> None:
    shipped = sorted(DATA_DIR.glob("salience_*.json"))
    assert shipped, "the package ships trained weights"
    for path in shipped:
        raw = json.loads(path.read_text(encoding="utf-8"))
        model = load_model(raw["model_id"])
        assert model is not None and model.w.shape == (384,)
        assert "salience_data.generate" in model.meta["trained_on"]
        assert min(model.meta["cv"]["kept"], model.meta["cv"]["faded"]) >= 0.85
        if model.spoken is not None:  # the head for named turns read as recall embeds them
            assert model.spoken.w.shape == (384,) and "spoken(" in model.spoken.meta["trained_on"]
            assert min(model.spoken.meta["cv"]["kept"], model.spoken.meta["cv"]["faded"]) >= 0.85
            again = SalienceModel.from_json(json.loads(json.dumps(model.to_json()))).spoken
            assert again is not None and np.allclose(again.w, model.spoken.w)
            assert again.threshold == model.spoken.threshold
    # e5-small's weights read recall's vector of a named speaker's turn: add() embeds a turn once
    e5 = load_model("multilingual-e5-small-q4")
    assert e5 is not None and e5.reads_spoken
    assert load_model("no-such-model") is None


def test_without_weights_for_the_embedder_the_rules_decide() -> None:
    ingestor = RuleIngestor(embedder=get_embedder("static"))
    assert ingestor.model is None
    text = "every morning I walk the dog"
    assert ingestor.observe(Message(text, "user")).importance == round(salience(text).score, 4)
    assert RuleIngestor().model is None


def test_the_trained_model_scores_turns_the_rules_miss() -> None:
    try:
        embedder = get_embedder("e5-small", threads=1)
    except EmbedderUnavailable as exc:
        pytest.skip(f"e5-small not installed: {exc}")
    ingestor = RuleIngestor(embedder=embedder)
    assert ingestor.model is not None
    for text in ("Two daughters, both at university now", "孩子明年上初中了", "I get hay fever every spring"):
        assert ingestor.observe(Message(text, "user")).importance >= 0.5, text
    for text in ("thanks, that helps!", "好的", "what's the capital of Peru?"):
        assert ingestor.observe(Message(text, "user")).importance < 0.5, text
    # assistant turns keep the rules' lower score
    assert (
        "model" not in ingestor.observe(Message("Two daughters, both at university now", "assistant")).reasons
    )
    assert features(np.zeros((1, 384)), [0.5]).shape == (1, 385)


def test_build_ingestor_chooses_the_model_unless_told_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_SALIENCE", "rules")
    rules = build_ingestor()
    assert isinstance(rules, RuleIngestor) and rules.model is None
    monkeypatch.setenv("REMNANT_SALIENCE", "sometimes")
    with pytest.raises(ValidationError, match="REMNANT_SALIENCE"):
        build_ingestor()
    monkeypatch.setenv("REMNANT_SALIENCE", "model")
    try:
        get_embedder("e5-small", threads=2)
    except EmbedderUnavailable as exc:
        pytest.skip(f"e5-small not installed: {exc}")
    # lexical recall (no embedder given) still gets the trained salience
    trained = build_ingestor(None)
    assert isinstance(trained, RuleIngestor) and trained.model is not None
