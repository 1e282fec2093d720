"""Adapters that raise, hang or return garbage: each case is recorded as failed, the run goes on,
and a report is always written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.bench.cli import eval_cmd
from remnant.bench.eval import adapters
from remnant.bench.eval.adapters import (
    ADAPTERS,
    EvalError,
    MalformedResult,
    Recalled,
    check_recalled,
    context_of,
    register_adapter,
)
from remnant.bench.eval.harness import resolve_suites, run_eval
from remnant.bench.eval.report import write_report
from remnant.bench.eval.runner import run_case

from .broken_adapters import BROKEN, Hangs, Raises


class QuickHang(Hangs):
    sleep_s = 5.0


@pytest.mark.parametrize("adapter", ["raises", "malformed"])
def test_broken_adapter_cases_fail_and_the_suite_goes_on(adapter: str) -> None:
    run = run_eval(["retention", "deletion"], [adapter], quick=True, timeout_s=30, factories=BROKEN)
    for suite in ("retention", "deletion"):
        r = run.results[suite][adapter]
        assert r.passed is False
        assert r.score == 0.0
        assert len(r.failures) == len(r.cases) >= 2
        assert all(c.error for c in r.failures)


def test_a_hanging_adapter_times_out_per_case() -> None:
    run = run_eval(["conflict"], ["hangs"], quick=True, timeout_s=0.3, factories={"hangs": QuickHang})
    r = run.results["conflict"]["hangs"]
    assert r.failures and all("timed out" in (c.error or "") for c in r.failures)
    assert r.score == 0.0


def test_run_case_records_a_factory_that_raises() -> None:
    def bad() -> Hangs:
        raise OSError("cannot open store")

    out = run_case("c", bad, lambda a: {}, timeout_s=5)  # type: ignore[arg-type, return-value]
    assert not out.ok and "cannot open store" in (out.error or "")


def test_check_recalled_rejects_malformed_results() -> None:
    with pytest.raises(MalformedResult):
        check_recalled("nope", 5)
    with pytest.raises(MalformedResult):
        check_recalled([Recalled("a", "x")] * 3, 2)
    assert check_recalled([{"id": "a", "text": "t"}], 5) == [Recalled("a", "t", 0.0)]


def test_context_of_falls_back_to_recall_within_budget() -> None:
    from remnant.bench.eval.adapters import RememberEverything

    a = RememberEverything()
    for i in range(30):
        a.remember("u", f"my dentist appointment number {i} is on a long and wordy afternoon")
    text = context_of(a, "u", "dentist appointment", 40)
    assert 0 < len(text.splitlines()) < 10


def test_unknown_names_are_clear_errors() -> None:
    with pytest.raises(EvalError, match="unknown suite"):
        resolve_suites(["nope"])
    with pytest.raises(EvalError, match="unknown adapter"):
        run_eval(["retention"], ["nope"], quick=True)


@pytest.mark.slow
def test_report_is_written_even_when_everything_failed(tmp_path: Path) -> None:
    run = run_eval(["conflict", "retention_curve"], ["raises"], quick=True, timeout_s=10, factories=BROKEN)
    paths = write_report(run, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["results"]["conflict"]["raises"]["failures"]
    html = paths["html"].read_text()
    assert "FAIL" in html and "http" not in html.replace("http-equiv", "")  # offline: nothing fetched


@pytest.mark.slow
def test_cli_quick_run_writes_json_html_and_charts(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        eval_cmd,
        ["--suite", "conflict", "--suite", "deletion", "--quick", "--seed", "5", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "conflict: share of changed facts" in result.output
    assert "remnant" in result.output and "baseline" in result.output
    data = json.loads((tmp_path / "results.json").read_text())
    assert set(data["results"]) == {"conflict", "deletion"}
    assert data["results"]["conflict"]["remnant"]["passed"] is True
    html = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in html
    assert (tmp_path / "eval-conflict.png").stat().st_size < 200_000


def test_cli_rejects_unknown_adapter(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        eval_cmd, ["--suite", "conflict", "--quick", "--adapter", "nope", "--out", str(tmp_path)]
    )
    assert result.exit_code != 0
    assert "unknown adapter" in result.output


def test_broken_adapters_are_not_shipped() -> None:
    assert not set(BROKEN) & set(ADAPTERS)
    assert {"remnant", "baseline", "vector-baseline", "never-forgets", "forgets-everything"} <= set(ADAPTERS)


def test_a_registered_adapter_is_selectable_from_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(adapters, "ADAPTERS", dict(adapters.ADAPTERS))  # the registration ends with the test
    register_adapter("raises", Raises)
    with pytest.raises(EvalError, match="already registered"):
        register_adapter("raises", Raises)
    result = CliRunner().invoke(
        eval_cmd, ["--suite", "conflict", "--quick", "--adapter", "raises", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "raises" in result.output and "failed case(s)" in result.output
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["results"]["conflict"]["raises"]["failures"]
