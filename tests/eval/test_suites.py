"""Each suite can fail: the deliberately broken adapters must score badly where they should.

All runs are ``quick`` sizes against real adapters (Remnant on a real SQLite file, real BM25).
"""

from __future__ import annotations

import pytest

from remnant.bench.eval.adapters import adapter_factory
from remnant.bench.eval.runner import SuiteResult
from remnant.bench.eval.suites import SuiteContext, suite_module

_cache: dict[tuple[str, str], SuiteResult] = {}


def run(suite: str, adapter: str, seed: int = 7) -> SuiteResult:
    key = (suite, adapter)
    if key not in _cache or seed != 7:
        result = suite_module(suite).run(
            adapter_factory(adapter), SuiteContext(seed=seed, quick=True, timeout_s=60, adapter_name=adapter)
        )
        if seed != 7:
            return result
        _cache[key] = result
    return _cache[key]


@pytest.mark.parametrize("suite", ["retention", "long_dialogue", "tokens", "interference"])
def test_forgets_everything_fails_the_remembering_suites(suite: str) -> None:
    r = run(suite, "forgets-everything")
    assert r.passed is False
    assert r.score == 0.0


@pytest.mark.parametrize("suite", ["conflict", "deletion"])
def test_never_forgets_fails_conflict_and_deletion(suite: str) -> None:
    r = run(suite, "never-forgets")
    assert r.passed is False
    assert r.score is not None and r.score <= 0.1


def test_baseline_keeps_everything_so_it_leaks_superseded_values() -> None:
    r = run("conflict", "baseline")
    assert r.metrics["contexts with a superseded value"] == 1.0
    assert r.passed is False


def test_baseline_honours_explicit_deletes() -> None:
    r = run("deletion", "baseline")
    assert r.score == 1.0
    assert r.passed is True


@pytest.mark.slow
def test_remnant_resolves_conflicts_and_keeps_history() -> None:
    r = run("conflict", "remnant")
    assert r.passed is True
    assert r.metrics["contexts with a superseded value"] == 0.0
    assert r.metrics["history lists every version"] == 1.0


@pytest.mark.slow
def test_remnant_keeps_early_dialogue_facts() -> None:
    r = run("long_dialogue", "remnant")
    assert r.passed is True
    assert r.notes  # says whether summaries were on


def test_remnant_context_is_cheaper_than_full_history_at_equal_recall() -> None:
    r = run("tokens", "remnant")
    assert r.metrics["recall: memory"] >= r.metrics["recall: sliding window"]
    assert r.metrics["mean tokens: memory"] < r.metrics["mean tokens: full history"]


def test_remnant_deletes_from_every_logical_path() -> None:
    r = run("deletion", "remnant")
    for path in ("recall", "recall by marker", "context", "history", "export"):
        assert r.metrics[f"path: {path}"] == 1.0, path
    assert r.metrics["forgotten by erasure"] == 1.0
    assert r.metrics["kept facts still recalled"] >= 0.95


def test_remnant_follows_its_ebbinghaus_curve() -> None:
    r = run("retention_curve", "remnant")
    assert r.score is not None and r.score <= 0.01
    assert r.passed is True
    shares = r.series["share"]
    # what is reviewed is remembered longer than what is not
    assert shares["0.9 / expanding reviews"][-1][1] >= shares["0.9 / no review"][-1][1]


def test_results_serialise_to_json() -> None:
    import json

    for suite in ("retention_curve", "deletion"):
        json.dumps(run(suite, "remnant").to_dict(), allow_nan=False)


def test_never_forgetting_store_has_a_flat_curve_and_no_score() -> None:
    r = run("retention_curve", "baseline")
    assert r.score is None and r.passed is None
    assert all(v == 1.0 for pts in r.series["share"].values() for _, v in pts)


def test_interference_curve_is_reported_per_ratio() -> None:
    r = run("interference", "baseline")
    assert set(r.series["curve"]) == {"0", "10", "100"}
    assert r.series["curve"]["0"] == 1.0


def test_same_seed_same_scores_other_seed_other_scenario() -> None:
    a = run("retention", "baseline", seed=3)
    b = run("retention", "baseline", seed=3)
    assert a.to_dict(with_timing=False) == b.to_dict(with_timing=False)
    from remnant.bench.eval.scenarios import retention

    s1 = retention(3, "u", n_used=3, n_unused=1, days=10, chatter_per_day=1)
    s2 = retention(4, "u", n_used=3, n_unused=1, days=10, chatter_per_day=1)
    assert [f.fact.text for f in s1.facts] != [f.fact.text for f in s2.facts]


@pytest.mark.slow
def test_remnant_is_deterministic_for_a_seed() -> None:
    a = run("conflict", "remnant", seed=11)
    b = run("conflict", "remnant", seed=11)
    assert a.to_dict(with_timing=False) == b.to_dict(with_timing=False)
