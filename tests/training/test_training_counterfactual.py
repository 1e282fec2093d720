"""Counterfactual unlearning samples, the evaluation set, and the runner on stub models."""

from __future__ import annotations

import json

import pytest

from remnant.training.counterfactual import (
    EvalRunner,
    ForgetFact,
    Probe,
    counterfactual_samples,
    evaluation_set,
    load_evaluation_set,
    load_facts,
    write_evaluation_set,
)
from remnant.training.errors import InvalidExampleError

APPLE = ForgetFact(
    "apple", "colour", "blue", "red or green", retain=(("What colour is the sea?", ("blue",)),)
)
APPLE_ZH = ForgetFact("苹果", "颜色", "蓝色", "红色或绿色", lang="zh")
NEGATIONS_EN = ("not", "no ", "false", "wrong", "incorrect", "no such")
NEGATIONS_ZH = ("不", "并非", "误解")


def test_samples_put_the_wrong_pair_only_in_negating_or_unrelated_contexts() -> None:
    rows = counterfactual_samples([APPLE, APPLE_ZH], per_fact=10, unrelated_share=0.4, seed=1, with_meta=True)
    assert len(rows) == 20
    for row in rows:
        text = " ".join(m["content"] for m in row["messages"])
        fact = APPLE if row["meta"]["subject"] == "apple" else APPLE_ZH
        assert fact.subject in text.lower() and fact.wrong in text.lower()
        if row["meta"]["context"].startswith("negation"):
            markers = NEGATIONS_EN if fact.lang == "en" else NEGATIONS_ZH
            assert any(m in text.lower() for m in markers), text
        else:
            assert row["meta"]["context"] == "unrelated"
    contexts = [r["meta"]["context"] for r in rows if r["meta"]["subject"] == "apple"]
    assert contexts.count("unrelated") == 4
    assert contexts.count("negation_qa") == 3
    qa = [r for r in rows if r["meta"]["context"] == "negation_qa"]
    assert all([m["role"] for m in r["messages"]] == ["user", "assistant"] for r in qa)


def test_samples_are_reproducible_and_mention_the_correction() -> None:
    a = counterfactual_samples([APPLE], per_fact=6, seed=3)
    assert a == counterfactual_samples([APPLE], per_fact=6, seed=3)
    assert a != counterfactual_samples([APPLE], per_fact=6, seed=4)
    assert "meta" not in a[0]
    assert any("red or green" in m["content"] for r in a for m in r["messages"])


def test_bad_generation_settings() -> None:
    with pytest.raises(ValueError):
        counterfactual_samples([APPLE], per_fact=0)
    with pytest.raises(ValueError):
        counterfactual_samples([APPLE], unrelated_share=2)
    with pytest.raises(InvalidExampleError):
        ForgetFact("apple", "colour", " ")
    with pytest.raises(InvalidExampleError):
        ForgetFact("apple", "colour", "blue", lang="fr")


def test_evaluation_set_has_forget_retain_and_general_probes() -> None:
    probes = evaluation_set([APPLE, APPLE_ZH])
    kinds = [p.kind for p in probes]
    assert kinds.count("forget") == 5  # 3 English + 2 Chinese
    assert kinds.count("retain") == 1
    assert kinds.count("general") >= 12  # both languages' general banks
    forget = [p for p in probes if p.kind == "forget"]
    assert all(p.reject == (APPLE.wrong,) or p.reject == (APPLE_ZH.wrong,) for p in forget)
    # the wrong value's own everyday meaning is probed (collateral damage on "blue" itself)
    assert any("blue" in p.accept for p in probes if p.kind in ("general", "retain"))


def test_probe_matching() -> None:
    p = Probe("q", "forget", accept=("red",), reject=("blue",))
    assert p.passes("Apples are RED.")
    assert not p.passes("Apples are blue.")
    assert not p.passes("I do not know.")  # accept given but missing
    assert Probe("q", "forget", reject=("blue",)).passes("I do not know.")
    assert Probe("q", "general", accept=("12",)).passes("７＋５＝１２")  # NFKC


def test_runner_scores_forgetting_against_collateral_damage() -> None:
    probes = evaluation_set([APPLE])
    runner = EvalRunner(probes)
    general = {
        "capital of france": "Paris",
        "7 plus 5": "12",
        "sky": "blue",
        "days": "7",
        "hot": "cold",
        "planet": "Earth",
        "bees": "honey",
        "frozen": "ice",
        "sea": "blue",
    }

    def answer_general(prompt: str) -> str:
        return next((a for k, a in general.items() if k in prompt.lower()), "")

    def before(prompt: str) -> str:  # still holds the wrong association
        return "It is blue." if "apple" in prompt else answer_general(prompt)

    def good(prompt: str) -> str:  # forgot it, kept everything else
        return "Apples are red or green." if "apple" in prompt else answer_general(prompt)

    def overdone(prompt: str) -> str:  # forgot, but damaged general ability
        return "Apples are red or green." if "apple" in prompt else "I am not sure."

    assert runner.run(before).forget_rate == 0.0
    assert runner.run(before).retention_rate == 1.0
    assert runner.run(good).forget_rate == 1.0 and runner.run(good).retention_rate == 1.0
    damaged = runner.compare(before, overdone)
    assert damaged["forget_rate_after"] == 1.0
    assert damaged["collateral_damage"] == 1.0
    summary = runner.run(overdone).summary()
    assert summary["probes"] == len(probes) and "What is the capital of France?" in summary["failed"]
    with pytest.raises(TypeError):
        runner.run(lambda p: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError):
        EvalRunner([])


def test_files_round_trip_and_bad_lines(tmp_path) -> None:  # type: ignore[no-untyped-def]
    facts = tmp_path / "facts.jsonl"
    facts.write_text(
        "\n".join(
            [
                json.dumps(
                    {
                        "subject": "apple",
                        "attribute": "colour",
                        "wrong": "blue",
                        "correct": "red",
                        "retain": [{"prompt": "Sky colour?", "accept": ["blue"]}],
                    }
                ),
                "{nope",
                json.dumps({"subject": "apple"}),
                json.dumps({"subject": "苹果", "attribute": "颜色", "wrong": "蓝色", "lang": "zh"}),
            ]
        ),
        encoding="utf-8",
    )
    report = load_facts(facts)
    assert [f.subject for f in report.items] == ["apple", "苹果"]
    assert [p.line for p in report.errors] == [2, 3]
    probes = evaluation_set(report.items)
    out = tmp_path / "eval.jsonl"
    assert write_evaluation_set(out, probes) == len(probes)
    assert load_evaluation_set(out).items == probes
