"""The reinforcement and salience suites run through `remnant eval`'s harness and can fail."""

from __future__ import annotations

from remnant.bench.eval.adapters import adapter_factory
from remnant.bench.eval.suites import SuiteContext, suite_module


def _run(suite: str, adapter: str):  # type: ignore[no-untyped-def]
    ctx = SuiteContext(seed=7, quick=True, timeout_s=120, adapter_name=adapter)
    return suite_module(suite).run(adapter_factory(adapter), ctx)


def test_recall_only_loops_do_not_keep_a_memory_alive() -> None:
    r = _run("reinforcement", "remnant")
    assert r.passed is True, r.metrics
    assert r.metrics["returned by the loop"] > 0 and r.metrics["strength change after day 1"] == 0.0
    assert _run("reinforcement", "never-forgets").passed is False
    assert _run("reinforcement", "forgets-everything").passed is False


def test_salience_suite_fails_both_extremes_and_reports_dev_and_heldout() -> None:
    keep_all = _run("salience", "never-forgets")
    assert keep_all.passed is False and keep_all.metrics["heldout: filler faded"] == 0.0
    drop_all = _run("salience", "forgets-everything")
    assert drop_all.passed is False and drop_all.metrics["heldout: salient kept"] == 0.0
    ours = _run("salience", "remnant")
    assert {"heldout: salient kept", "heldout: filler faded", "dev: salient kept"} <= set(ours.metrics)
    assert ours.metrics["dev: salient kept"] >= 0.9 and ours.metrics["dev: filler faded"] >= 0.9
