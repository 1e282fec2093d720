"""Retention: after months of forgetting sweeps, facts that are still valid and used stay recallable.

Each simulated user says facts on day 0 at importance 0.3, 0.5 or 0.8. Two thirds of them are used
again (their question is asked) weekly, every two weeks or monthly; the rest are never used. Every
day brings chatter and, now and then, someone else's version of a topic (a near-duplicate). Two
facts carry a 3-day TTL. Time advances one day at a time; the adapter runs its forgetting each day.

At the end every used fact's question is asked once more: it counts as retained if the fact is in
the top 5. Unused facts and expired ones are reported too (a system that forgets well lets them go).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.scenarios import retention
from remnant.bench.eval.suites import SuiteContext

NAME = "retention"
DEFINITION = (
    "share of still-valid facts that were used (asked about weekly, every two weeks or monthly) "
    "that are in the top 5 of recall for their question after the simulated months"
)
TARGET = ">= 0.95"
THRESHOLD = 0.95


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    users = ctx.size(8, 2)
    days = ctx.size(180, 60)
    n_used, n_unused = ctx.size(18, 9), ctx.size(6, 3)
    chatter = ctx.size(4, 2)
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    hits = total = 0
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    extra: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for u in range(users):
        sc = retention(
            ctx.seed, f"user{u:02d}", n_used=n_used, n_unused=n_unused, days=days, chatter_per_day=chatter
        )
        used = [f for f in sc.facts if f.schedule is not None]

        def body(a: MemoryAdapter, sc: Any = sc) -> dict[str, Any]:
            ids: dict[str, str] = {}
            for rf in sc.facts:
                f = rf.fact
                ids[f.topic] = a.remember(
                    sc.user_id,
                    f.text,
                    key=f.topic,
                    kind=f.kind,
                    importance=f.importance,
                    ttl_days=rf.expires_day,
                )
            uses: dict[int, list[Any]] = defaultdict(list)
            for rf in sc.facts:
                for d in rf.use_days:
                    uses[d].append(rf)
            for day in range(sc.days):
                for text in sc.chatter[day]:
                    a.remember(sc.user_id, text, kind="episode", importance=0.2)
                for rf in uses.get(day, []):
                    check_recalled(a.recall(sc.user_id, rf.fact.query, 5), 5)
                a.advance_time(1)
            out: dict[str, Any] = {"facts": []}
            for rf in sc.facts:
                got = check_recalled(a.recall(sc.user_id, rf.fact.query, 5), 5)
                found = ids[rf.fact.topic] in {h.id for h in got}
                junk = sum(1 for h in got if h.id not in ids.values())
                out["facts"].append(
                    {
                        "topic": rf.fact.topic,
                        "schedule": rf.schedule,
                        "importance": rf.fact.importance,
                        "expired": rf.expires_day is not None,
                        "found": found,
                        "junk": junk,
                        "returned": len(got),
                    }
                )
            return out

        outcome = run_case(sc.user_id, factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        if not outcome.ok:
            total += len(used)
            for rf in used:
                groups[f"{rf.schedule} / importance {rf.fact.importance}"][1] += 1
            continue
        for f in outcome.value["facts"]:
            if f["expired"]:
                extra["expired facts still recalled"][0] += int(f["found"])
                extra["expired facts still recalled"][1] += 1
            elif f["schedule"] is None:
                extra["unused facts still recalled"][0] += int(f["found"])
                extra["unused facts still recalled"][1] += 1
            else:
                total += 1
                hits += int(f["found"])
                g = groups[f"{f['schedule']} / importance {f['importance']}"]
                g[0] += int(f["found"])
                g[1] += 1
                extra["top-5 slots taken by chatter"][0] += f["junk"]
                extra["top-5 slots taken by chatter"][1] += max(1, f["returned"])
    result.score = ratio(hits, total)
    result.passed = result.score >= THRESHOLD and not result.failures
    result.metrics = {
        "retained": hits,
        "used_facts": total,
        "users": users,
        "days": days,
        **{k: round(ratio(*v), 4) for k, v in extra.items()},
    }
    result.series = {"groups": {k: round(ratio(*v), 4) for k, v in sorted(groups.items())}}
    return result
