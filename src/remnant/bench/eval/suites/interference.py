"""Interference: recall of the relevant facts as irrelevant and near-duplicate distractors pile up.

A user states ``n`` facts on day 0 and uses them weekly. Over the next 60 simulated days the
adapter also receives ``ratio × n`` distractors, spread evenly: 40 % chatter, 30 % near-duplicates
(the same attribute of someone else: "my neighbour told me their dentist is ..."), 30 % talk that
repeats a fact's question without its answer.
At the end each fact's question is asked; the score at each ratio is recall@5. The suite's score
is the recall at the largest ratio (100× by default).
"""

from __future__ import annotations

from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.scenarios import interference
from remnant.bench.eval.suites import SuiteContext

NAME = "interference"
DEFINITION = (
    "recall@5 of the relevant facts after adding distractors (40% chatter, 30% someone else's "
    "version of the attribute, 30% talk repeating the question) at up to 100x the number of "
    "relevant facts, over 60 simulated days"
)
TARGET = ">= 0.90 at the largest ratio (our own target: the issue asks for the curve)"
THRESHOLD = 0.90


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    ratios = [0, 10, 100] if ctx.quick else [0, 1, 5, 10, 25, 50, 100]
    users = ctx.size(3, 1)
    n_relevant = ctx.size(20, 6)
    days = ctx.size(60, 30)
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    by_ratio: dict[int, list[int]] = {r: [0, 0] for r in ratios}
    for r in ratios:
        for u in range(users):
            sc = interference(ctx.seed, f"user{u:02d}", n_relevant=n_relevant, ratio=r, days=days)

            def body(a: MemoryAdapter, sc: Any = sc) -> dict[str, Any]:
                ids = [
                    a.remember(sc.user_id, f.text, key=f.topic, kind=f.kind, importance=f.importance)
                    for f in sc.relevant
                ]
                per_day = len(sc.distractors) / sc.days
                placed = 0
                for day in range(sc.days):
                    upto = round(per_day * (day + 1))
                    for text in sc.distractors[placed:upto]:
                        a.remember(sc.user_id, text, kind="episode", importance=0.3)
                    placed = upto
                    if day % 7 == 6:
                        for f in sc.relevant:
                            check_recalled(a.recall(sc.user_id, f.query, 5), 5)
                    a.advance_time(1)
                found = 0
                for f, mid in zip(sc.relevant, ids, strict=True):
                    got = check_recalled(a.recall(sc.user_id, f.query, 5), 5)
                    found += int(mid in {h.id for h in got})
                return {"found": found, "total": len(ids)}

            outcome = run_case(f"x{r}-user{u:02d}", factory, body, timeout_s=ctx.timeout_s)
            result.cases.append(outcome)
            by_ratio[r][0] += outcome.value.get("found", 0) if outcome.ok else 0
            by_ratio[r][1] += len(sc.relevant)
    curve = {str(r): round(ratio(*v), 4) for r, v in by_ratio.items()}
    result.score = ratio(*by_ratio[ratios[-1]])
    result.passed = result.score >= THRESHOLD and not result.failures
    result.metrics = {f"recall@5 at {r}x": v for r, v in curve.items()}
    result.series = {"curve": curve}
    return result
