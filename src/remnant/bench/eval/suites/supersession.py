"""Supersession of unkeyed facts, on a held-out set of statement pairs written by someone else.

For each pair of ``src/remnant/bench/heldout/supersession.jsonl`` (``old``, ``new``, label
``supersedes`` / ``compatible`` / ``unrelated``) a fresh user tells the adapter ``old``, a day
passes, then ``new``, both through the ordinary unkeyed write path an app would use
(``remember(text, kind="fact")`` with no key). Then: is ``old`` still current? (``is_remembered``
when the adapter has it, else: is it among the top 5 recalled for its own text.) A pair counts as
"superseded" when ``old`` is no longer current. Precision and recall of that against the
``supersedes`` label are the figures.

The rules were written without reading the file (see its README); this suite is the only reader.
``remnant eval --suite supersession --data FILE`` scores another file of the same schema instead
(the development pairs ``tests/forgetting/dev_supersession_2.jsonl`` and ``dev_supersession_3.jsonl``).
It can fail both ways: a memory that keeps everything has recall 0, one that drops everything has
the precision of the label share (0.45).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.suites import SuiteContext

NAME = "supersession"
DEFINITION = (
    "precision and recall of 'the old statement is no longer current' against the label "
    "'supersedes', over held-out old/new statement pairs (EN/ZH; supersedes, compatible, unrelated) "
    "each told to a fresh user through the unkeyed write path"
)
TARGET = "precision >= 0.90 and recall >= 0.80"
MIN_PRECISION = 0.90
MIN_RECALL = 0.80
DATA = Path(__file__).resolve().parents[2] / "heldout" / "supersession.jsonl"
CHUNK = 20  # pairs per case (one adapter each, a fresh user per pair)


def load_pairs(path: Path = DATA) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _current(a: MemoryAdapter, user: str, mid: str, text: str) -> bool:
    fn = getattr(a, "is_remembered", None)
    if callable(fn):
        return bool(fn(mid))
    return mid in {h.id for h in check_recalled(a.recall(user, text, 5), 5)}


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    """The held-out pairs, or those of ``ctx.data`` (``remnant eval --data FILE``, e.g. the dev file)."""
    pairs = load_pairs(Path(ctx.data) if ctx.data else DATA)
    if ctx.quick:
        pairs = pairs[:: max(1, len(pairs) // 40)]
    result = run_pairs(factory, ctx, pairs)
    if ctx.data:
        result.notes.append(f"pairs from {ctx.data}, not the held-out file")
    return result


def run_pairs(factory: AdapterFactory, ctx: SuiteContext, pairs: Sequence[dict[str, Any]]) -> SuiteResult:
    """Score ``pairs`` (dicts with id, lang, old, new, label); the suite's data or another set."""
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    by_group: dict[str, list[int]] = {}  # "<lang>/<label>" -> [superseded, total]
    for start in range(0, len(pairs), CHUNK):
        chunk = list(pairs[start : start + CHUNK])

        def body(a: MemoryAdapter, chunk: list[dict[str, Any]] = chunk) -> dict[str, Any]:
            out = []
            for p in chunk:
                user = f"pair-{p['id']}"
                old_id = a.remember(user, p["old"], kind="fact")
                a.advance_time(1)
                a.remember(user, p["new"], kind="fact")
                out.append(not _current(a, user, old_id, p["old"]))
            return {"superseded": out}

        outcome = run_case(f"pairs{start:03d}", factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        got = outcome.value.get("superseded", []) if outcome.ok else []
        for i, p in enumerate(chunk):
            # a failed case counts against the adapter both ways: nothing superseded where it should
            superseded = bool(got[i]) if i < len(got) else p["label"] != "supersedes"
            positive = p["label"] == "supersedes"
            counts[("tp" if positive else "fp") if superseded else ("fn" if positive else "tn")] += 1
            group = by_group.setdefault(f"{p.get('lang', '?')}/{p['label']}", [0, 0])
            group[0] += int(superseded)
            group[1] += 1
    precision = ratio(counts["tp"], counts["tp"] + counts["fp"])
    recall = ratio(counts["tp"], counts["tp"] + counts["fn"])
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    result.score = round(f1, 4)
    result.passed = precision >= MIN_PRECISION and recall >= MIN_RECALL and not result.failures
    result.metrics = {
        "pairs": len(pairs),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        **counts,
        **{f"superseded share {k}": round(ratio(*v), 4) for k, v in sorted(by_group.items())},
    }
    result.series = {"bars": {"precision": result.metrics["precision"], "recall": result.metrics["recall"]}}
    return result
