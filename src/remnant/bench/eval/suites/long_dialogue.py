"""Long-dialogue consistency: the name, goals and constraints from the first turns survive 10,000 turns.

The user introduces themselves in the first five turns (name, two goals, two constraints), then
the dialogue runs on for 1,000 to 10,000 turns of chatter, side facts and talk about other people's
things, at 60 turns a simulated day, with the adapter's forgetting running daily. An app on a
memory layer stores each turn and keys what its extractor finds; the early facts are extracted as
important keyed facts, which Remnant pins (its summaries module, when installed, would also fold
the turns into summaries). At the end the app builds a context (600 tokens) for a question about
each early fact and for a general "plan my week" request; each early fact must be in both.
"""

from __future__ import annotations

from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, context_of, summaries_available
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.scenarios import dialogue
from remnant.bench.eval.suites import SuiteContext

NAME = "long_dialogue"
DEFINITION = (
    "share of the early facts (name, 2 goals, 2 constraints from the first 5 turns) present in the "
    "600-token context built at the end of the dialogue, for a question about each fact and for a "
    "general request"
)
TARGET = ">= 0.95 at every dialogue length"
THRESHOLD = 0.95
BUDGET = 600
GENERAL = "Given everything you know about me, help me plan my week."


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    lengths = [300, 1000] if ctx.quick else [1000, 3000, 10000]
    per_length = ctx.size(2, 1)
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    if not summaries_available():
        result.notes.append(
            "remnant.summarize is not installed: summaries are off; the early facts are kept as "
            "important keyed facts, pinned, as an app on Remnant would do"
        )
    else:
        result.notes.append(
            "remnant.summarize is installed, but this suite does not call it: the early facts are kept "
            "as important keyed facts, pinned"
        )
    by_length: dict[int, list[int]] = {n: [0, 0] for n in lengths}
    checks = {"own question": [0, 0], "general request": [0, 0]}
    for n in lengths:
        for u in range(per_length):
            dlg = dialogue(ctx.seed, f"user{u:02d}", turns=n)

            def body(a: MemoryAdapter, dlg: Any = dlg) -> dict[str, Any]:
                extracted = dlg.extracted()
                for i, text in enumerate(dlg.turns):
                    f = extracted.get(i)
                    if f is not None:
                        a.remember(
                            dlg.user_id,
                            text,
                            key=f.topic,
                            kind=f.kind,
                            importance=f.importance,
                            pinned=f.pinned,
                        )
                    else:
                        a.remember(dlg.user_id, text, kind="episode", importance=0.3)
                    if i % dlg.turns_per_day == dlg.turns_per_day - 1:
                        a.advance_time(1)
                general = context_of(a, dlg.user_id, GENERAL, BUDGET)
                facts = []
                for f in dlg.early:
                    own = context_of(a, dlg.user_id, f.query, BUDGET)
                    facts.append({"topic": f.topic, "own": f.text in own, "general": f.text in general})
                return {"facts": facts}

            outcome = run_case(f"{n}turns-user{u:02d}", factory, body, timeout_s=ctx.timeout_s)
            result.cases.append(outcome)
            facts = outcome.value.get("facts", []) if outcome.ok else []
            if not outcome.ok:
                by_length[n][1] += 2 * len(dlg.early)
                for c in checks.values():
                    c[1] += len(dlg.early)
            for f in facts:
                for name, ok in (("own question", f["own"]), ("general request", f["general"])):
                    checks[name][0] += int(ok)
                    checks[name][1] += 1
                    by_length[n][0] += int(ok)
                    by_length[n][1] += 1
    scores = {n: ratio(*v) for n, v in by_length.items()}
    result.score = min(scores.values()) if scores else 0.0
    result.passed = result.score >= THRESHOLD and not result.failures
    result.metrics = {
        "score is the worst length": True,
        **{f"{k} (all lengths)": round(ratio(*v), 4) for k, v in checks.items()},
        "summaries": "remnant.summarize"
        if summaries_available()
        else "off (keyed important facts + pinning)",
    }
    result.series = {"by_length": {str(n): round(s, 4) for n, s in scores.items()}}
    return result
