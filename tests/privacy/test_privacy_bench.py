"""Corpus generation and scoring."""

from __future__ import annotations

import pytest

from remnant.bench.privacy import evaluate
from remnant.privacy import Detector, EntityType
from remnant.privacy.corpus import GoldSpan, LabelledSentence, generate_corpus


@pytest.mark.slow
def test_corpus_is_seeded_and_labelled() -> None:
    a = generate_corpus(120, 30, seed=3)
    b = generate_corpus(120, 30, seed=3)
    assert [s.text for s in a] == [s.text for s in b]
    assert sum(s.has_pii for s in a) == 120 and sum(not s.has_pii for s in a) == 30
    assert {s.lang for s in a if s.has_pii} == {"en", "zh", "mixed"}
    for s in a:
        for g in s.spans:
            assert 0 <= g.start < g.end <= len(s.text)
    assert any(s.variant != "plain" for s in a)  # some disguised numbers


@pytest.mark.slow
def test_default_corpus_size() -> None:
    corpus = generate_corpus()
    assert len(corpus) >= 2000 and sum(s.has_pii for s in corpus) >= 2000


def test_scoring_counts(plain_detector: Detector) -> None:
    text = "mail a@b.com, phone 13812345678, name Bob"
    corpus = [
        LabelledSentence(
            text,
            (
                GoldSpan(EntityType.EMAIL, 5, 12),
                GoldSpan(EntityType.PHONE, 20, 31),
                GoldSpan(EntityType.PERSON, 38, 41),
            ),
            "en",
            "plain",
        ),
        LabelledSentence("nothing here", (), "en", "plain"),
        LabelledSentence("version 1.2.3.4 of the tool", (), "en", "plain"),  # parses as an IPv4
    ]
    rep = evaluate(plain_detector, corpus)
    assert rep.by_type[EntityType.EMAIL].recall == 1.0
    assert rep.by_type[EntityType.PHONE].recall == 1.0
    assert rep.by_type[EntityType.PERSON].recall == 0.0
    assert rep.leaked_values == 1
    assert rep.clean_sentences == 2 and rep.clean_with_detection == 1
