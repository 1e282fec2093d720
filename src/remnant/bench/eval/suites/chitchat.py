"""Chit-chat: turns that state no lasting fact about the user must not become facts.

Each case (``bench/heldout/chitchat.jsonl``, written by three independent authors who read no
code; each line names its ``author``) is one user turn of small talk, a reaction, a joke, a
question to the assistant, or a look-alike of a fact that is none ("my brain is mush today", "call
me at 5pm", 我是说真的). The turn goes through the product's conversation path (``observe``:
``Memory.add`` for Remnant) for a fresh user; the turn **invents** when anything is stored beyond
the one memory of the turn itself (an extracted fact, a preference, a copy).

The score is the share of turns that invent nothing; per language and author too. A store that
keeps only what it is given (``never-forgets``) scores 1.0: the suite checks one failure, the
invented fact, and says nothing of what a memory misses (the timelines suite does).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, EvalError, MemoryAdapter
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.suites import SuiteContext, read_jsonl

NAME = "chitchat"
DEFINITION = (
    "share of chit-chat turns (EN/ZH, no lasting fact said, fact look-alikes included; through "
    "Memory.add) from which nothing is stored beyond the turn itself: no invented fact"
)
TARGET = ">= 0.99 (at most 1 % of turns invent a fact)"
PRODUCT_EMBEDDER = True


def load_cases(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The turns of a JSON Lines file (default: the held-out file shipped with the package)."""
    rows = read_jsonl(path, "chitchat.jsonl")
    cases = []
    for i, row in enumerate(rows):
        if "provenance" in row and len(row) == 1:
            continue  # a file's opening line saying who wrote it
        say = row.get("say", row.get("text"))  # the dev file spells it "text"
        if not isinstance(say, str) or not say.strip():
            raise EvalError(f"chitchat case {row.get('id', i)}: 'say' must be a non-empty text")
        cases.append({**row, "say": say, "id": row.get("id", f"line-{i + 1}")})
    return cases


def _case(a: MemoryAdapter, case: dict[str, Any]) -> dict[str, Any]:
    observe, lister = getattr(a, "observe", None), getattr(a, "memory_texts", None)
    if not callable(observe) or not callable(lister):
        raise NotImplementedError("the adapter needs observe(user_id, text) and memory_texts(user_id)")
    observe("chatter", case["say"])
    stored = list(lister("chatter").values())
    return {"invented": [t for t in stored if t.strip() != case["say"].strip()][: max(0, len(stored) - 1)]}


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    cases = load_cases(ctx.data)
    if ctx.quick:  # an even spread over the file
        cases = cases[:: max(1, len(cases) // 30)][:30]
    tallies: dict[str, dict[str, list[int]]] = {
        axis: defaultdict(lambda: [0, 0]) for axis in ("lang", "author")
    }
    clean = 0
    invented: dict[str, list[str]] = {}
    for case in cases:

        def body(a: MemoryAdapter, c: dict[str, Any] = case) -> dict[str, Any]:
            return _case(a, c)

        outcome = run_case(str(case.get("id", "?")), factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        made = outcome.value["invented"] if outcome.ok else ["(the case did not finish)"]
        ok = not made
        clean += ok
        if not ok:
            invented[str(case.get("id", "?"))] = [case["say"], *made]
        for axis in ("lang", "author"):
            t = tallies[axis][str(case.get(axis, "?"))]
            t[0] += ok
            t[1] += 1
    result.score = ratio(clean, len(cases))
    result.passed = result.score >= 0.99 and not result.failures
    result.metrics = {
        "turns": len(cases),
        "nothing invented": round(result.score, 4),
        **{
            f"{axis}: {label}": f"{t[0]}/{t[1]}"
            for axis in ("lang", "author")
            for label, t in sorted(tallies[axis].items())
        },
        "turns that invented (turn, then what was stored)": invented,
    }
    return result
