"""The supersession suite: it can fail both ways, and Remnant passes on the development pairs.

Remnant itself is run here on the hand-written development pairs only (through the same
``run_pairs``), never on the held-out file: the held-out figure is measured once, by hand.
"""

from __future__ import annotations

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
    pairs = [
        {"id": i, "lang": p.lang, "old": p.old, "new": p.new, "label": p.label}
        for i, p in enumerate(DEV_PAIRS)
        if i % 4 == 0
    ]
    r = suite.run_pairs(adapter_factory("remnant"), SuiteContext(quick=True, adapter_name="remnant"), pairs)
    assert not r.failures
    assert r.metrics["precision"] >= 0.9 and r.metrics["recall"] >= 0.8
