"""Salience: what matters, said once, is still remembered a month later; filler is gone by then.

Each turn of ``bench/heldout/salience.jsonl`` (written by an independent author who did not read
the rules; labelled salient or filler) is said once by its own user through the adapter's
conversation path (``Memory.add`` for Remnant), then thirty days pass one at a time with the
adapter's daily maintenance (Remnant: sweeps, with consolidation before fading). A salient turn
counts as kept if the user still remembers anything (the turn itself, a fact drawn from it or
consolidated out of it); a filler turn counts as faded if the user remembers nothing. The same is
reported for the development turns (``bench/eval/data/salience_dev.jsonl``) the salience cues were
written against; only the held-out figures decide the verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.suites import SuiteContext

NAME = "salience"
DEFINITION = (
    "held-out turns said once: share of salient ones the user still remembers after 30 days of daily "
    "maintenance, and share of filler ones the user no longer remembers"
)
TARGET = "salient kept >= 0.9 and filler faded >= 0.9 (held-out turns)"
THRESHOLD = 0.9
HELDOUT = Path(__file__).resolve().parents[2] / "heldout" / "salience.jsonl"
DEV = Path(__file__).resolve().parents[1] / "data" / "salience_dev.jsonl"
DAYS = 30


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _body(rows: list[dict[str, Any]], prefix: str) -> Any:
    def body(a: MemoryAdapter) -> dict[str, Any]:
        observe = getattr(a, "observe", None)
        remembered = getattr(a, "remembered_texts", None)
        if not callable(observe) or not callable(remembered):
            raise NotImplementedError("the adapter has no conversation path (observe/remembered_texts)")
        users = [f"{prefix}{i:04d}" for i in range(len(rows))]
        for user, row in zip(users, rows, strict=True):
            observe(user, row["text"])
        for _ in range(DAYS):
            a.advance_time(1)
        return {
            row["id"]: {"label": row["label"], "lang": row["lang"], "kept": bool(remembered(user))}
            for user, row in zip(users, rows, strict=True)
        }

    return body


def _shares(value: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for scope in ("all", "en", "zh"):
        rows = [v for v in value.values() if scope == "all" or v["lang"] == scope]
        salient = [v for v in rows if v["label"] == "salient"]
        filler = [v for v in rows if v["label"] == "filler"]
        suffix = "" if scope == "all" else f" ({scope})"
        out[f"salient kept{suffix}"] = round(ratio(sum(v["kept"] for v in salient), len(salient)), 4)
        out[f"filler faded{suffix}"] = round(ratio(sum(not v["kept"] for v in filler), len(filler)), 4)
    return out


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    heldout, dev = load(HELDOUT), load(DEV)
    if ctx.quick:
        heldout = heldout[:: max(1, len(heldout) // 40)]
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    for name, rows in (("heldout", heldout), ("dev", dev)):
        outcome = run_case(name, factory, _body(rows, name), timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        if outcome.ok:
            shares = _shares(outcome.value)
            result.metrics.update({f"{name}: {k}": v for k, v in shares.items()})
            result.metrics[f"{name}: turns"] = len(rows)
    kept = result.metrics.get("heldout: salient kept")
    faded = result.metrics.get("heldout: filler faded")
    if kept is not None and faded is not None:
        result.score = round(min(kept, faded), 4)
        result.passed = kept >= THRESHOLD and faded >= THRESHOLD and not result.failures
    result.notes.append("dev turns were written with the salience cues; held-out turns were not")
    return result
