"""Retention curve: the share of memories still remembered over simulated time, per importance and
review schedule, against the Ebbinghaus curve the decay model says they follow.

Groups of memories at importance 0.2, 0.5 and 0.9 (jittered ±0.05 so a group fades over a span of
days rather than all at once) are reviewed never, on an expanding schedule (days 1, 3, 7, 15, 30,
60, 120) or weekly. At sample days the adapter is asked whether each memory is still remembered
(``is_remembered``) and, where it offers one, its strength (``strength``). For the never-reviewed
groups the mean measured strength is compared with the closed-form Ebbinghaus curve
``R(t) = s0 · exp(-t / S)`` from :mod:`remnant.core.decay`; the score is the largest gap (0 means the
engine follows the curve exactly). An adapter without a strength has no score, only its share
curve (a store that never forgets is a flat line at 1).
"""

from __future__ import annotations

import random
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter
from remnant.bench.eval.runner import SuiteResult, run_case
from remnant.bench.eval.suites import SuiteContext

NAME = "retention_curve"
DEFINITION = (
    "largest gap between the mean measured strength of never-reviewed memories and the Ebbinghaus "
    "curve R(t) = s0·exp(-t/S) of remnant.core.decay; plus the share still remembered per "
    "importance and review schedule"
)
TARGET = "<= 0.01 (the engine follows its curve)"
IMPORTANCE = (0.2, 0.5, 0.9)
SCHEDULES: dict[str, tuple[int, ...]] = {
    "no review": (),
    "expanding reviews": (1, 3, 7, 15, 30, 60, 120),
    "weekly reviews": tuple(range(7, 400, 7)),
}


def _samples(days: int) -> list[int]:
    base = [0, 1, 2, 3, 5, 7, 10, 14, 21, 30, 45, 60, 75, 90, 120, 150, 180, 240, 300, 365]
    return [d for d in base if d <= days]


def _theory(importance: float, day: float, cfg: Any = None) -> float:
    from remnant.core import decay as dk

    cfg = cfg or dk.DecayConfig()
    state = dk.new_state("fact", importance, 0.0, cfg)
    return dk.strength_at(state, day)


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    per_group = ctx.size(20, 5)
    days = ctx.size(180, 60)
    rng = random.Random(f"curve:{ctx.seed}")
    groups = [(imp, sched) for imp in IMPORTANCE for sched in SCHEDULES]
    members = {
        g: [min(1.0, max(0.0, g[0] + rng.uniform(-0.05, 0.05))) for _ in range(per_group)] for g in groups
    }
    samples = _samples(days)
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, None)

    def body(a: MemoryAdapter) -> dict[str, Any]:
        decay_only = getattr(a, "decay_only", None)
        if callable(decay_only):
            decay_only()  # this suite measures the curve; eviction is measured by the others
        ids: dict[tuple[float, str], list[str]] = {}
        for g in groups:
            ids[g] = [
                a.remember("curve", f"Memory {g[1]} {g[0]} number {i}.", kind="fact", importance=imp)
                for i, imp in enumerate(members[g])
            ]
        review = getattr(a, "review", None)
        strength = getattr(a, "strength", None)
        remembered = getattr(a, "is_remembered", None)
        share: dict[str, list[list[float]]] = {f"{g[0]} / {g[1]}": [] for g in groups}
        mean_strength: dict[str, list[list[float]]] = {}
        for day in range(days + 1):
            if day in samples:
                for g in groups:
                    label = f"{g[0]} / {g[1]}"
                    if callable(remembered):
                        ok = sum(1 for i in ids[g] if remembered(i))
                        share[label].append([day, ok / len(ids[g])])
                    if callable(strength) and g[1] == "no review":
                        s = sum(float(strength(i)) for i in ids[g]) / len(ids[g])
                        mean_strength.setdefault(label, []).append([day, s])
            for g in groups:
                if day in SCHEDULES[g[1]] and callable(review):
                    for i in ids[g]:
                        review(i)  # a review of a faded memory relearns it
            if day < days:
                a.advance_time(1)
        config = getattr(a, "decay_config", None)
        return {"share": share, "strength": mean_strength, "config": config() if callable(config) else None}

    outcome = run_case("curve", factory, body, timeout_s=ctx.timeout_s)
    result.cases.append(outcome)
    if not outcome.ok:
        result.passed = False
        return result
    config = outcome.value.pop("config", None)
    theory: dict[str, list[list[float]]] = {}
    worst = None
    for label, points in outcome.value["strength"].items():
        imp = float(label.split(" / ")[0])
        mean_theory = [
            [d, sum(_theory(m, d, config) for m in members[(imp, "no review")]) / per_group]
            for d, _ in points
        ]
        theory[label] = [[d, round(v, 5)] for d, v in mean_theory]
        gap = max(abs(s - t) for (_, s), (_, t) in zip(points, mean_theory, strict=True))
        worst = gap if worst is None else max(worst, gap)
    result.score = worst
    result.passed = None if worst is None else worst <= 0.01
    if worst is None:
        result.notes.append("the adapter exposes no strength: only the share curve is shown")
    final = {label: pts[-1][1] for label, pts in outcome.value["share"].items() if pts}
    result.metrics = {f"remembered on day {days}: {k}": round(v, 4) for k, v in final.items()}
    result.series = {
        "share": outcome.value["share"],
        "strength": outcome.value["strength"],
        "ebbinghaus": theory,
        "threshold": 0.52,
    }
    return result
