"""The chit-chat suite: a turn that gives more than its own memory counts as inventing.

The turns here are the suite's own smoke cases (written with the suite); the evaluation set is the
authors' file, scored only through ``remnant eval --suite chitchat``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remnant.bench.eval.adapters import EvalError, adapter_factory
from remnant.bench.eval.suites import DATA_SUITES, SUITE_NAMES, SuiteContext
from remnant.bench.eval.suites.chitchat import load_cases, run

SMOKE = [
    {"id": "c1", "author": "suite", "lang": "en", "say": "lol ok thanks"},
    # a turn that does state a fact: the product keeps one, so the suite must count it
    {"id": "c2", "author": "suite", "lang": "en", "say": "I work as a nurse at St Mary's hospital"},
]


def _file(tmp_path: Path, rows: list[dict[str, str]]) -> str:
    p = tmp_path / "cc.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    return str(p)


def test_registered_as_a_data_suite() -> None:
    assert "chitchat" in SUITE_NAMES and "chitchat" in DATA_SUITES
    assert len(load_cases()) == 180  # the shipped held-out file


def test_a_stated_fact_counts_and_small_talk_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMNANT_EMBEDDER", "none")
    ctx = SuiteContext(timeout_s=120, adapter_name="remnant", data=_file(tmp_path, SMOKE))
    result = run(adapter_factory("remnant"), ctx)
    assert result.score == 0.5 and not result.passed
    assert list(result.metrics["turns that invented (turn, then what was stored)"]) == ["c2"]
    keeper = run(adapter_factory("never-forgets"), SuiteContext(adapter_name="never-forgets", data=ctx.data))
    assert keeper.score == 1.0  # keeps only what it is given


def test_the_older_file_shape_and_bad_lines(tmp_path: Path) -> None:
    rows = [{"provenance": "who wrote it"}, {"text": "hi there", "lang": "en"}]
    assert [c["say"] for c in load_cases(_file(tmp_path, rows))] == ["hi there"]  # type: ignore[arg-type]
    with pytest.raises(EvalError, match="non-empty"):
        load_cases(_file(tmp_path, [{"id": "x", "say": " "}]))
