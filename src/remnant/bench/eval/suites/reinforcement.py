"""Reinforcement follows use: a memory that recall keeps returning but nobody uses still fades;
one the application uses is kept.

Three users each hold one short-lived note (an episode of importance 0.4, under the consolidation
bar, so it fades in about two days unless something reinforces it). For ten days:

- **loop**: 10 questions a day (100 in all) that share one word with the note but are about
  something else, as an agent that recalls on every turn asks them; the note is often returned;
- **control**: nothing happens;
- **used**: the note is recalled for what it says and reported used (``Memory.used``).

Verdict: after one day the loop's note has the control's strength within 5 % (recall-only loops
leave decay unchanged; adapters without strengths skip this check), after ten days the loop's note
is forgotten like the control's, and the used note is still remembered.
"""

from __future__ import annotations

from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled
from remnant.bench.eval.runner import SuiteResult, run_case
from remnant.bench.eval.suites import SuiteContext

NAME = "reinforcement"
DEFINITION = (
    "100 unrelated recalls that return a note leave its decay within 5 % of an untouched note's and "
    "let it fade; a note the application uses is still remembered after 10 days"
)
TARGET = "strength within 5 % after 1 day; loop note forgotten and used note remembered after 10 days"
NOTE = "The team offsite is at the Lakeview hotel"
UNRELATED = (
    "which hotel chain has the best loyalty program",
    "is hotel breakfast usually included in Spain",
    "how do I complain about a noisy hotel room",
    "what is a boutique hotel exactly",
    "hotel check in time in Japan",
    "are hotel minibars worth it",
    "the cheapest hotel booking sites",
    "how to get a hotel upgrade for free",
    "hotel versus hostel for students",
    "what does a hotel concierge do",
)
USE_QUERY = "where is the team offsite"


def _remembered(a: MemoryAdapter, user: str) -> bool:
    texts = getattr(a, "remembered_texts", None)
    if callable(texts):
        return bool(texts(user))
    return bool(check_recalled(a.recall(user, NOTE, 5), 5))


def _body(a: MemoryAdapter) -> dict[str, Any]:
    ids = {u: a.remember(u, NOTE, kind="episode", importance=0.4) for u in ("loop", "control", "used")}
    strength = getattr(a, "strength", None)
    used = getattr(a, "used", None)
    out: dict[str, Any] = {"returned by the loop": 0}
    for day in range(10):
        for q in UNRELATED:
            got = check_recalled(a.recall("loop", q, 5), 5)
            out["returned by the loop"] += int(ids["loop"] in {h.id for h in got})
        got = check_recalled(a.recall("used", USE_QUERY, 5), 5)
        if callable(used):
            used([h.id for h in got])
        a.advance_time(1)
        if day == 0 and callable(strength):
            loop, control = float(strength(ids["loop"])), float(strength(ids["control"]))
            out["strength change after day 1"] = round(loop / control - 1.0, 4) if control else None
    out["loop note remembered after 10 days"] = _remembered(a, "loop")
    out["control note remembered after 10 days"] = _remembered(a, "control")
    out["used note remembered after 10 days"] = _remembered(a, "used")
    return out


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    outcome = run_case("loop", factory, _body, timeout_s=ctx.timeout_s)
    result.cases.append(outcome)
    if not outcome.ok:
        return result
    v = outcome.value
    result.metrics.update(v)
    change = v.get("strength change after day 1")
    decay_ok = change is None or abs(change) <= 0.05
    if change is None:
        result.notes.append("the adapter reports no strengths: the 5 % check was skipped")
    checks = [
        decay_ok,
        not v["loop note remembered after 10 days"],
        bool(v["used note remembered after 10 days"]),
    ]
    result.score = round(sum(checks) / len(checks), 4)
    result.passed = all(checks) and v["returned by the loop"] > 0
    if v["returned by the loop"] == 0:
        result.notes.append("the loop never returned the note: nothing was tested")
    return result
