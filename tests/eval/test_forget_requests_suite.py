"""The forget_requests suite: quick mode on the dev cases (never the held-out file's contents)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.bench.eval.adapters import adapter_factory
from remnant.bench.eval.suites import SUITE_NAMES, SuiteContext, suite_module
from remnant.bench.eval.suites.forget_requests import load_cases, run_cases

DEV = Path(__file__).parents[1] / "forgetting" / "dev_forget_requests.jsonl"


def _run(adapter: str):  # type: ignore[no-untyped-def]
    ctx = SuiteContext(quick=True, timeout_s=60, adapter_name=adapter)
    return run_cases(adapter_factory(adapter), ctx, load_cases(DEV)[:12])


def test_registered() -> None:
    assert "forget_requests" in SUITE_NAMES
    assert suite_module("forget-requests").NAME == "forget_requests"
    assert len(load_cases()) > 0  # the held-out file ships with the package


def test_remnant_passes_the_dev_cases() -> None:
    r = _run("remnant")
    assert r.passed is True and r.score == 1.0, r.metrics
    assert r.metrics["clean (no kept memory touched)"] == 1.0


@pytest.mark.parametrize(
    ("adapter", "found", "clean"), [("never-forgets", 0.0, 1.0), ("forgets-everything", 1.0, 0.0)]
)
def test_the_extremes_fail(adapter: str, found: float, clean: float) -> None:
    r = _run(adapter)
    assert r.passed is False and r.score == 0.0
    assert r.metrics["found (every expected memory or value gone)"] <= found
    assert r.metrics["clean (no kept memory touched)"] == clean


@pytest.mark.slow
def test_remnant_passes_the_second_dev_set() -> None:
    # tests/forgetting/dev_forget_requests_2.jsonl: ordinary wordings (synonyms, descriptions,
    # possessives, 别记/不要记住…) written to broaden the rules; quick mode samples 24 of them
    dev2 = DEV.with_name("dev_forget_requests_2.jsonl")
    ctx = SuiteContext(quick=True, timeout_s=60, adapter_name="remnant")
    r = run_cases(adapter_factory("remnant"), ctx, load_cases(dev2))
    assert r.score == 1.0, r.metrics
    assert r.metrics["clean (no kept memory touched)"] == 1.0


def test_data_replaces_the_cases_and_auto_gives_this_suite_the_product_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from remnant.bench.cli import eval_cmd
    from remnant.bench.eval.adapters import EvalError, NeverForgets
    from remnant.bench.eval.harness import run_eval

    seen: list[str | None] = []

    class Spy(NeverForgets):
        def __init__(self) -> None:
            seen.append(os.environ.get("REMNANT_EMBEDDER"))
            super().__init__()

    monkeypatch.delenv("REMNANT_EMBEDDER", raising=False)
    dev3 = DEV.with_name("dev_forget_requests_3.jsonl")
    run = run_eval(
        ["forget_requests"], ["spy"], factories={"spy": Spy}, data=dev3, embedder="auto", quick=True
    )
    assert run.results["forget_requests"]["spy"].metrics["cases"] == 24  # quick mode samples the file
    assert set(seen) == {None}  # unset: build_memory installs the product default (e5-small)
    seen.clear()
    run_eval(["conflict"], ["spy"], factories={"spy": Spy}, embedder="auto", quick=True)
    assert set(seen) == {"none"}  # the other suites measure forgetting with lexical recall
    assert "REMNANT_EMBEDDER" not in os.environ  # restored afterwards
    with pytest.raises(EvalError, match=r"--data replaces the cases of .*forget_requests.* only"):
        run_eval(["conflict"], ["spy"], factories={"spy": Spy}, data=dev3)
    out = CliRunner().invoke(
        eval_cmd,
        [
            "--suite",
            "forget_requests",
            "--adapter",
            "never-forgets",
            "--quick",
            "--data",
            str(dev3),
            "--out",
            str(tmp_path),
        ],
    )
    assert out.exit_code == 0, out.output
    assert "forget_requests" in out.output and "never-forgets" in out.output


def test_short_values_are_looked_for_in_the_raw_bytes_with_their_context() -> None:
    from remnant.bench.eval.suites.forget_requests import raw_needles

    texts = ["i'm 41 and my email is ana@example.net"]
    assert raw_needles(["ana@example.net"], texts) == [b"ana@example.net"]
    assert raw_needles(["41"], texts) == [b"i'm 41 and"]  # a bare "41" is in any file by chance
    assert raw_needles(["41"], ["41 then 41"]) == [b"41 the", b"hen 41"]
