"""The embedding attribute classifier for unkeyed supersession: its generated statements and pairs,
the centroids, the subject/addition marks, and the policy's use of it (rules first)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from remnant.embed.base import EmbedderUnavailable
from remnant.embed.registry import get_embedder
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.engine.forgetting.supersession_set import DEV_PAIRS, evaluate_policy
from remnant.training.attribute_data import OTHER, generate, pairs
from remnant.understand.attribute_model import AttributeClassifier, Centroids, fit_centroids
from remnant.understand.attributes import unread_relation


def test_generated_statements_and_pairs() -> None:
    statements = generate(800, seed=2)
    assert statements == generate(800, seed=2)
    attrs = Counter(s.attribute for s in statements)
    assert {"city", "employer", "diet", "commute", OTHER} <= set(attrs)
    assert {s.lang for s in statements} == {"en", "zh"}
    labelled = pairs(statements, 300, seed=0)
    assert set(Counter(label for *_, label in labelled)) == {"supersedes", "unrelated", "compatible"}


def test_centroids_classify_with_a_margin_and_round_trip() -> None:
    rng = np.random.default_rng(0)
    a, b = np.eye(8)[0], np.eye(8)[1]
    x = np.vstack(
        [a + 0.1 * rng.normal(size=8) for _ in range(20)] + [b + 0.1 * rng.normal(size=8) for _ in range(20)]
    )
    names, matrix, center = fit_centroids(x, ["city"] * 20 + ["diet"] * 20)
    c = Centroids("toy", names, matrix, center, 0.1, 0.0, {})
    (first, margin), (second, _) = c.classify(np.vstack([a, b]))
    assert (first, second) == ("city", "diet") and margin > 0.5
    again = Centroids.from_json(json.loads(json.dumps(c.to_json())))
    assert again.classify(a)[0][0] == "city"


def test_subject_addition_and_hypothetical_marks() -> None:
    assert unread_relation("Bristol is home now", "I live in Leeds") == "supersedes"
    assert unread_relation("my sister is in Bristol now", "I live in Leeds") == "compatible"
    assert unread_relation("I also have a place in Bristol", "I live in Leeds") == "compatible"
    assert unread_relation("if I moved to Bristol", "I live in Leeds") is None


def test_without_a_model_the_classifier_answers_nothing() -> None:
    clf = AttributeClassifier(get_embedder("static"), embedder_name="no-such-model")
    assert clf.centroids is None and clf.classify("Bristol is home now") is None
    assert clf.decide("Bristol is home now", "I live in Leeds") == (None, "no attribute model")


@pytest.mark.slow
def test_the_policy_supersedes_what_only_the_classifier_reads() -> None:
    try:
        get_embedder("e5-small", threads=1)
    except EmbedderUnavailable as exc:
        pytest.skip(f"e5-small not installed: {exc}")
    policy = ContradictionPolicy(classifier=AttributeClassifier(threads=1))
    action, verdict = policy.decide("Bristol is home now", "I live in Leeds")
    assert action == "supersede" and "classifier" in verdict.reason
    assert policy.decide("Bristol is home now", "my sister lives in Rome")[0] is None
    assert policy.decide("I drink tea with honey", "I drink tea")[0] != "supersede"
    assert (
        ContradictionPolicy(mode="flag", classifier=policy.classifier).decide(
            "Bristol is home now", "I live in Leeds"
        )[0]
        == "flag"
    )
    # the development pairs the rules were written against stay exact
    score = evaluate_policy(DEV_PAIRS, policy)
    assert score.precision == 1.0 and score.recall == 1.0
