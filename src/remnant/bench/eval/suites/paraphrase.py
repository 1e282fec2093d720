"""Paraphrase: questions that share few or no words with the memory that answers them.

Each case (held-out, written by an independent author apart from the retrieval code:
``bench/heldout/paraphrase.jsonl``; schema ``{id, lang, user, memories: [{mid, text}], question,
expect: [mid, ...]}``, English and Chinese) is a user's small memory and one question such as
"where does Ana live?" against "I moved to Berlin". A fresh adapter remembers the memories, the
question goes to ``recall(user, question, 5)``; a case's score is the share of its ``expect``
memories among the top 5 (Recall@5), averaged over cases, overall and per language.

The suite can fail: plain BM25 (the ``baseline`` adapter, also registered as ``bm25``) finds only
what shares words with the question.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, check_recalled
from remnant.bench.eval.runner import SuiteResult, run_case
from remnant.bench.eval.suites import SuiteContext, read_jsonl

NAME = "paraphrase"
DEFINITION = (
    "Recall@5 of held-out questions (EN/ZH) that share few or no words with the memories that "
    "answer them, each case a fresh user with a handful of memories"
)
TARGET = ">= 0.85 Recall@5"
THRESHOLD = 0.85


def load_cases(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The cases of a JSON Lines file (default: the held-out file shipped with the package)."""
    return read_jsonl(path, "paraphrase.jsonl")


def _case(a: MemoryAdapter, case: dict[str, Any]) -> dict[str, Any]:
    user = str(case.get("user") or "user")
    ids: dict[str, str] = {}
    for m in case["memories"]:
        ids[a.remember(user, str(m["text"]), kind="fact")] = str(m["mid"])
    got = check_recalled(a.recall(user, str(case["question"]), 5), 5)
    top = {ids.get(h.id) for h in got}
    expect = [str(x) for x in case["expect"]]
    found = sum(1 for x in expect if x in top)
    return {"recall": found / len(expect) if expect else 0.0, "lang": str(case.get("lang", "?"))}


def run(factory: AdapterFactory, ctx: SuiteContext, cases: list[dict[str, Any]] | None = None) -> SuiteResult:
    cases = cases if cases is not None else load_cases()
    if ctx.quick:
        cases = cases[:: max(1, len(cases) // 20)]
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    per_lang: dict[str, list[float]] = defaultdict(list)
    scores: list[float] = []
    for case in cases:

        def body(a: MemoryAdapter, c: dict[str, Any] = case) -> dict[str, Any]:
            return _case(a, c)

        outcome = run_case(str(case.get("id", len(scores))), factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        value = float(outcome.value.get("recall", 0.0)) if outcome.ok else 0.0
        scores.append(value)
        per_lang[str(case.get("lang", "?"))].append(value)
    result.score = statistics.fmean(scores) if scores else 0.0
    result.passed = result.score >= THRESHOLD and not result.failures
    result.metrics = {"recall@5": round(result.score, 4), "cases": len(scores)}
    for lang, vals in sorted(per_lang.items()):
        result.metrics[f"recall@5 {lang}"] = round(statistics.fmean(vals), 4)
        result.metrics[f"cases {lang}"] = len(vals)
    return result
