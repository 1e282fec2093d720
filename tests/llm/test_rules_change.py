"""The rule extractor on changes of state, habits, family and plans (EN/ZH), and the tightened "my X is Y"."""

from __future__ import annotations

import pytest

from remnant.extract.evaluate import HELD_OUT, LABELLED, score
from remnant.extract.rules import RuleExtractor


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I'm a pharmacist now", "occupation", "pharmacist"),
        ("switched to decaf last week", "drink", "decaf"),
        ("I no longer work at Tailspin", "employer", "tailspin"),
        ("these days I bike to work", "commute", "bike"),
        ("started working at Fabrikam on Monday", "employer", "fabrikam"),
        ("every morning I go swimming", "exercise_habit", "swimming"),
        ("I usually meditate before breakfast", "habit_meditate_before_breakfast", "meditate"),
        ("my daughter starts at Lakeside Primary next term", "daughter_school", "lakeside primary"),
        ("my husband is a firefighter", "partner_occupation", "firefighter"),
        ("我不再吃肉了", "diet", "vegetarian"),
        ("上班改成坐地铁了", "commute", "subway"),
        ("现在住通州了", "city", "通州"),
        ("平时我都六点起床", "wake_time", "六点"),
        ("我女儿下学期转到实验小学", "daughter_school", "实验小学"),
        ("我老婆在医院上班", "partner_employer", "医院"),
    ],
)
def test_change_habit_family_patterns(text: str, key: str, value: str) -> None:
    facts = {f.key: f for f in RuleExtractor().extract(text)}
    assert key in facts, facts
    assert value in facts[key].value.lower()


def test_plans_get_a_key_and_an_expiry() -> None:
    (fact,) = RuleExtractor().extract("下个月我们去云南旅游")
    assert fact.key.startswith("plan_") and fact.expires_in is not None
    (fact,) = RuleExtractor().extract("In October we are flying to Lima")
    assert fact.key.startswith("plan_in_october") and fact.expires_in is not None


def test_a_later_change_lands_on_the_same_key() -> None:
    x = RuleExtractor()
    assert (
        x.extract("I drive to work")[0].key == x.extract("I take the train to work now")[0].key == "commute"
    )
    assert x.extract("我每天跑步")[0].key == x.extract("现在每天去游泳")[0].key == "exercise_habit"


def test_passing_remarks_are_not_long_lived_facts() -> None:
    x = RuleExtractor()
    assert x.extract("my coffee is cold") == []
    assert x.extract("my week is crazy") == []
    assert x.extract("Would you recommend a vegan place?") == []
    (weak,) = x.extract("my plant is a monstera")
    assert weak.confidence < 0.6 and weak.importance <= 0.3 and weak.expires_in is not None
    (known,) = x.extract("my email is a@example.org")
    assert known.key == "email" and known.expires_in is None and known.confidence >= 0.9


def test_existing_labelled_sets_keep_their_precision() -> None:
    tuned = score(RuleExtractor().extract, LABELLED)
    held = score(RuleExtractor().extract, HELD_OUT)
    assert tuned.recall == 1.0 and tuned.precision >= 0.95
    assert held.precision >= 0.73 and held.recall >= 0.61
