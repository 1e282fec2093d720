"""The timelines suite: its schema, its checks both ways, and the extremes failing.

The cases here are the suite's own smoke cases (written with the suite, not an evaluation set); the
evaluation sets are the authors' files, scored only through ``remnant eval --suite timelines``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remnant.bench.eval.adapters import EvalError, adapter_factory
from remnant.bench.eval.suites import DATA_SUITES, SUITE_NAMES, SuiteContext
from remnant.bench.eval.suites.timelines import load_cases, run_cases, validate

SMOKE = [
    {
        "id": "smoke-move",
        "author": "suite",
        "lang": "en",
        "group": "update",
        "user": "u1",
        "events": [
            {"day": 0, "say": "I live in Berlin."},
            {"day": 3, "say": "I moved to Paris."},
            {"day": 10, "probe": {"query": "which city does the user live in?", "expect": ["Paris"]}},
        ],
    },
    {
        "id": "smoke-forget",
        "author": "suite",
        "lang": "en",
        "group": "forget",
        "user": "u2",
        "events": [
            {"day": 0, "say": "my phone number is 0412 555 019"},
            {"day": 0, "say": "I am allergic to penicillin"},
            {"day": 1, "forget": "forget my phone number"},
            {"day": 2, "probe": {"gone": ["0412 555 019"], "stored": ["penicillin"]}},
        ],
    },
]


def _file(tmp_path: Path) -> Path:
    p = tmp_path / "smoke.jsonl"
    p.write_text("\n".join(json.dumps(c) for c in SMOKE), "utf-8")
    return p


def _run(adapter: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    ctx = SuiteContext(timeout_s=120, adapter_name=adapter)
    return run_cases(adapter_factory(adapter), ctx, load_cases(_file(tmp_path)))


def test_registered_as_a_data_suite() -> None:
    assert "timelines" in SUITE_NAMES and "timelines" in DATA_SUITES


def test_remnant_passes_the_smoke_cases(tmp_path: Path) -> None:
    r = _run("remnant", tmp_path)
    assert r.score == 1.0, r.metrics


@pytest.mark.parametrize("adapter", ["never-forgets", "forgets-everything"])
def test_the_extremes_fail(adapter: str, tmp_path: Path) -> None:
    r = _run(adapter, tmp_path)
    assert r.passed is False and r.score < 1.0
    assert r.metrics["cases that failed"]


@pytest.mark.parametrize(
    "bad",
    [
        {"id": "x", "events": []},
        {"id": "x", "events": [{"day": 2, "say": "a"}, {"day": 1, "say": "b"}]},
        {"id": "x", "events": [{"day": 0, "say": "a", "forget": "b"}]},
        {"id": "x", "events": [{"day": 0, "probe": {}}]},
        {"id": "x", "events": [{"day": 0, "probe": {"expect": ["a"]}}]},
    ],
)
def test_malformed_cases_are_named(bad: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(EvalError, match="timeline x"):
        validate(bad)
