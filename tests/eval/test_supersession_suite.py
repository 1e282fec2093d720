"""The supersession suite: it can fail both ways, and Remnant passes on the development pairs.

Remnant itself is run here on the hand-written development pairs only (through the same
``run_pairs``), never on the held-out file: the held-out figure is measured once, by hand.
"""

from __future__ import annotations

from pathlib import Path

from remnant.bench.eval.adapters import adapter_factory
from remnant.bench.eval.suites import SUITE_NAMES, SuiteContext
from remnant.bench.eval.suites import supersession as suite
from remnant.engine.forgetting.supersession_set import DEV_PAIRS


def test_registered() -> None:
    assert "supersession" in SUITE_NAMES


def test_baselines_fail_on_the_quick_held_out_subset() -> None:
    never = suite.run(
        adapter_factory("never-forgets"), SuiteContext(quick=True, adapter_name="never-forgets")
    )
    assert never.passed is False and never.metrics["recall"] == 0.0
    drop = suite.run(
        adapter_factory("forgets-everything"), SuiteContext(quick=True, adapter_name="forgets-everything")
    )
    assert drop.passed is False and drop.metrics["precision"] < 0.9 and drop.metrics["recall"] == 1.0


def test_remnant_on_development_pairs() -> None:
    # the suite's path through the engine, on a few development pairs of each label and language:
    # the rules are scored on every pair once, in tests/forgetting/test_supersession.py
    seen: dict[tuple[str, str], int] = {}
    pairs = []
    for i, p in enumerate(DEV_PAIRS):
        if seen.setdefault((p.lang, p.label), 0) < 3:
            seen[(p.lang, p.label)] += 1
            pairs.append({"id": i, "lang": p.lang, "old": p.old, "new": p.new, "label": p.label})
    r = suite.run_pairs(adapter_factory("remnant"), SuiteContext(quick=True, adapter_name="remnant"), pairs)
    assert not r.failures
    assert r.metrics["precision"] >= 0.9 and r.metrics["recall"] >= 0.8


def test_cli_scores_a_pairs_file_of_its_own(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from remnant.cli import cli

    rows = [
        {
            "id": "t1",
            "lang": "en",
            "old": "I live in Ghent",
            "new": "we moved to Lyon",
            "label": "supersedes",
        },
        {
            "id": "t2",
            "lang": "en",
            "old": "I live in Ghent",
            "new": "my aunt lives in Lyon",
            "label": "compatible",
        },
        {"id": "t3", "lang": "zh", "old": "我住在青岛", "new": "我们搬到大连了", "label": "supersedes"},
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "report"
    args = [
        "eval",
        "--suite",
        "supersession",
        "--adapter",
        "never-forgets",
        "--data",
        str(data),
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "results.json").read_text())["results"]["supersession"]["never-forgets"][
        "metrics"
    ]
    assert metrics["pairs"] == 3 and metrics["fn"] == 2
    wrong = CliRunner().invoke(cli, ["eval", "--suite", "conflict", "--data", str(data), "--out", str(out)])
    assert wrong.exit_code != 0 and "--data" in wrong.output
