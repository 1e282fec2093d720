"""Choose the forget requests' meaning-match threshold by cross-validation over persona groups.

The meaning match (:class:`remnant.engine.forgetting.requests.MeaningMatch`) acts only when the rules
find nothing: it takes the user's memory whose stored vector is nearest the request (without its
verb), when the cosine clears a threshold and beats the runner-up by a margin. Here it is judged on
its own, on every case of the dev files (as if the rules had found nothing): a pick is *right* when
it is the one memory the case expects to go whole, *wrong* when it is a memory the case keeps (or a
turn of which only a value should go), and an abstention is neither. Folds are the cases' personas
(``user``), so a test fold holds people, memories and wordings the choice never saw. In each fold the
(threshold, margin) pair that maximises ``right - cost * wrong`` on the other folds is applied to
the held-back one. Never reads the held-out file.

    python -m remnant.bench.eval.forget_meaning_cv tests/forgetting/dev_forget_requests*.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

THRESHOLDS = tuple(round(0.80 + 0.01 * i, 2) for i in range(16))  # 0.80 … 0.95
MARGINS = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1)


@dataclass(frozen=True)
class Scored:
    """One case: each memory's cosine to the request and what the case wants of it."""

    persona: str
    best: float
    second: float
    outcome: str  # what a pick of the nearest memory would be: "right", "partly" or "wrong"


def _outcome(case: dict[str, Any], mid: str) -> str:
    partial = set(case.get("partial") or [])
    if mid in case["expect"] and mid not in partial:
        return "right" if len(case["expect"]) == 1 else "partly"
    return "wrong"


def score_cases(cases: Sequence[dict[str, Any]], embedder: Any) -> list[Scored]:
    """Cosines with ``embedder`` (document vectors of the memories, as recall stores them; the
    request without its verb as the query). Time-scoped cases are left out: they never reach it."""
    import numpy as np

    from remnant.retrieval.retriever import embedding_text
    from remnant.understand.requests import core_request

    out: list[Scored] = []
    for case in cases:
        if (case.get("scope") or {}).get("kind") == "time":
            continue
        mems = case["memories"]
        docs = np.asarray(
            embedder.embed_documents([embedding_text(m["text"], None) for m in mems]), dtype=np.float32
        )
        q = np.asarray(embedder.embed_query(core_request(case["request"])), dtype=np.float32)
        sims = docs @ q / (np.linalg.norm(docs, axis=1) * float(np.linalg.norm(q)) + 1e-9)
        order = np.argsort(-sims)
        best = float(sims[order[0]])
        second = float(sims[order[1]]) if len(order) > 1 else -1.0
        out.append(Scored(str(case.get("user", "?")), best, second, _outcome(case, mems[order[0]]["mid"])))
    return out


def tally(scored: Sequence[Scored], threshold: float, margin: float) -> dict[str, int]:
    t = {"right": 0, "partly": 0, "wrong": 0, "abstain": 0}
    for s in scored:
        if s.best >= threshold and s.best - s.second >= margin:
            t[s.outcome] += 1
        else:
            t["abstain"] += 1
    return t


def choose(scored: Sequence[Scored], cost: float) -> tuple[float, float]:
    """The (threshold, margin) maximising right - cost * wrong; ties go to the stricter pair."""
    best: tuple[float, float, float] | None = None
    for th in THRESHOLDS:
        for mg in MARGINS:
            t = tally(scored, th, mg)
            value = t["right"] - cost * t["wrong"]
            key = (value, th, mg)
            if best is None or key > best:
                best = key
    assert best is not None
    return best[1], best[2]


def cross_validate(scored: Sequence[Scored], cost: float) -> dict[str, Any]:
    by: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        by[s.persona].append(s)
    personas = sorted(by)
    folds = 5
    groups = [personas[i::folds] for i in range(folds)]
    precision: list[float] = []
    coverage: list[float] = []
    chosen: list[tuple[float, float]] = []
    total = {"right": 0, "partly": 0, "wrong": 0, "abstain": 0}
    for g in groups:
        test = [s for p in g for s in by[p]]
        train = [s for p in personas if p not in g for s in by[p]]
        th, mg = choose(train, cost)
        chosen.append((th, mg))
        t = tally(test, th, mg)
        for k in total:
            total[k] += t[k]
        picks = t["right"] + t["partly"] + t["wrong"]
        precision.append((t["right"] + t["partly"]) / picks if picks else 1.0)
        coverage.append(t["right"] / max(1, sum(s.outcome == "right" for s in test)))
    final = choose(scored, cost)
    return {
        "cases": len(scored),
        "folds": folds,
        "cost of a wrong pick": cost,
        "chosen per fold (threshold, margin)": chosen,
        "out-of-fold": total,
        "precision mean ± sd": f"{statistics.mean(precision):.3f} ± {statistics.pstdev(precision):.3f}",
        "right picks / right possible, mean ± sd": f"{statistics.mean(coverage):.3f} ± {statistics.pstdev(coverage):.3f}",
        "chosen on all cases (threshold, margin)": final,
        "all cases at that choice": tally(scored, *final),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--embedder", default="e5-small")
    ap.add_argument("--cost", type=float, default=9.0, help="How many right picks one wrong pick costs.")
    ap.add_argument("--cache", type=Path, help="Keep the cosines in this JSON file (re-runs skip the model).")
    args = ap.parse_args(argv)
    from remnant.bench.eval.suites.forget_requests import load_cases
    from remnant.embed.registry import get_embedder

    if args.cache is not None and args.cache.is_file():
        scored = [Scored(**d) for d in json.loads(args.cache.read_text("utf-8"))]
    else:
        cases = [c for f in args.files for c in load_cases(f)]
        scored = score_cases(cases, get_embedder(args.embedder))
        if args.cache is not None:
            args.cache.write_text(json.dumps([s.__dict__ for s in scored]), "utf-8")
    print(json.dumps(cross_validate(scored, args.cost), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
