"""Conflict resolution: when a fact changes, the current value wins and the old one stays out of context.

Each simulated user moves house, changes job and phone plan 2-5 times over the simulated months,
and a product's battery spec changes across manual versions (knowledge). Each statement is stored
under its key (an app on Remnant keys what it extracts; Remnant supersedes by key, a plain store
just keeps both). The user's questions about each key come up weekly, as they would in use.

At the end, for each key: the current value must rank above every superseded value in recall's
top 10, and no superseded value may appear in the context built for the question. Asking for the
history explicitly (``history(user, key)``) must still list every version, oldest first.
"""

from __future__ import annotations

from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled, context_of
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.scenarios import conflict
from remnant.bench.eval.suites import SuiteContext

NAME = "conflict"
DEFINITION = (
    "share of changed facts (address, job, phone plan, product spec across manual versions) whose "
    "current value is recalled and ranks above every superseded value in the top 10, with no "
    "superseded value in the context sent for the question (budget 300 tokens)"
)
TARGET = ">= 0.95, and superseded values leak into no context"
THRESHOLD = 0.95
BUDGET = 300


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    users = ctx.size(12, 3)
    days = ctx.size(240, 60)
    versions = ctx.size(5, 3)
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    keys_ok = keys_total = 0
    counters = {"current_ranked_first": 0, "leaks": 0, "history_complete": 0, "history_checked": 0}
    for u in range(users):
        sc = conflict(ctx.seed, f"user{u:02d}", versions=versions, days=days)

        def body(a: MemoryAdapter, sc: Any = sc) -> dict[str, Any]:
            events: dict[int, list[tuple[str, Any]]] = {}
            for h in sc.histories:
                for day, fact in h.versions:
                    events.setdefault(day, []).append(("fact", (h, fact)))
            for day, text in sc.chatter:
                events.setdefault(day, []).append(("chatter", text))
            for day in range(sc.days):
                for what, item in events.get(day, []):
                    if what == "fact":
                        h, fact = item
                        a.remember(sc.user_id, fact.text, key=h.key, kind=h.kind, importance=fact.importance)
                    else:
                        a.remember(sc.user_id, item, kind="episode", importance=0.2)
                if day % 7 == 6:  # the questions come up in use
                    for h in sc.histories:
                        if h.versions[0][0] <= day:
                            check_recalled(a.recall(sc.user_id, h.query, 5), 5)
                a.advance_time(1)
            out = []
            for h in sc.histories:
                current = h.versions[-1][1].value
                old = [f.value for _, f in h.versions[:-1]]
                got = check_recalled(a.recall(sc.user_id, h.query, 10), 10)
                pos_current = next((i for i, r in enumerate(got) if current in r.text), None)
                pos_old = [i for i, r in enumerate(got) if any(v in r.text for v in old)]
                ranked = pos_current is not None and all(pos_current < p for p in pos_old)
                text = context_of(a, sc.user_id, h.query, BUDGET)
                leak = any(v in text for v in old)
                hist_fn = getattr(a, "history", None)
                history_ok = None
                if callable(hist_fn):
                    texts = hist_fn(sc.user_id, h.key)
                    values = [f.value for _, f in h.versions]
                    seen = [next((i for i, t in enumerate(texts) if v in t), -1) for v in values]
                    history_ok = all(s >= 0 for s in seen) and seen == sorted(seen)
                out.append(
                    {
                        "key": h.key,
                        "ranked": ranked,
                        "leak": leak,
                        "in_context": current in text,
                        "history_ok": history_ok,
                    }
                )
            return {"keys": out}

        outcome = run_case(sc.user_id, factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        if not outcome.ok:
            keys_total += len(sc.histories)
            continue
        for k in outcome.value["keys"]:
            keys_total += 1
            keys_ok += int(k["ranked"] and not k["leak"])
            counters["current_ranked_first"] += int(k["ranked"])
            counters["leaks"] += int(k["leak"])
            if k["history_ok"] is not None:
                counters["history_checked"] += 1
                counters["history_complete"] += int(k["history_ok"])
    result.score = ratio(keys_ok, keys_total)
    result.passed = result.score >= THRESHOLD and counters["leaks"] == 0 and not result.failures
    result.metrics = {
        "changed_facts": keys_total,
        "current ranks first": round(ratio(counters["current_ranked_first"], keys_total), 4),
        "contexts with a superseded value": round(ratio(counters["leaks"], keys_total), 4),
        "history lists every version": round(
            ratio(counters["history_complete"], counters["history_checked"]), 4
        )
        if counters["history_checked"]
        else None,
    }
    result.series = {
        "bars": {
            "current ranks first": result.metrics["current ranks first"],
            "superseded in context": result.metrics["contexts with a superseded value"],
        }
    }
    return result
